import { Writable } from 'node:stream';
import { format } from 'node:util';
import type { RegisterCommand } from '../command.js';
import type { OutStream } from '../io.js';

const LSP_HELP = [
  '',
  'The server speaks the Language Server Protocol on standard input and output: an editor starts it,',
  'you do not type into it. It shows exactly the findings of `sessionctl validate` for each open',
  'buffer (unsaved text included) with the project\'s sessionctl.yaml, completes and explains keys,',
  'toolkits and tools from the catalogue, offers quick fixes, and can show what is deployed.',
  '',
  'Editor set-up (VS Code, Neovim, Helix, Zed): docs/editors.md. For example, Neovim:',
  "  vim.lsp.start({ name = 'sessionctl', cmd = { 'sessionctl', 'lsp' }, root_dir = vim.fs.root(0, { 'sessionctl.yaml', '.git' }) })",
  '',
  'Settings (initializationOptions, or the `sessionctl` section of the client\'s configuration):',
  '  unsetVariables  placeholder (default) | error   a ${VAR} your editor\'s environment does not set',
  '  debounceMs      150                              quiet time after an edit before checking',
  '  deployedLens    false                            show the recorded session above each manifest',
  '',
  'Logs go to the editor\'s output panel (and standard error), never to standard output.',
].join('\n');

/** `sessionctl lsp`: the language server (src/lsp/), loaded only when started. */
export const registerLsp: RegisterCommand = (program, env) => {
  program
    .command('lsp')
    .description('Run the language server (stdio) for editors: validate\'s findings while typing, completion, hover, quick fixes.')
    .option('--stdio', 'talk over standard input and output (the default and only transport; editors often pass it)')
    .addHelpText('after', LSP_HELP)
    .action(async () => {
      const { io } = env;
      // Standard output is the protocol: a stray console.log anywhere (a dependency's) would break
      // the next message, so the console writes to standard error while the server runs.
      const toStderr = (...args: unknown[]): void => io.stderr.write(`${format(...args)}\n`);
      Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr, warn: toStderr });
      const { startLanguageServer } = await import('../../lsp/server.js');
      startLanguageServer({ input: io.stdin, output: writableOf(io.stdout), env: io.env, cwd: io.cwd });
      // The server ends the process itself: on the client's `exit`, or when standard input closes.
      await new Promise<never>(() => {});
    });
};

/** The connection writes to a stream; the command's output is a plain writer. */
function writableOf(out: OutStream): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback): void {
      out.write(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      callback();
    },
  });
}
