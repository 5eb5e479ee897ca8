import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import type { RegisterCommand } from '../command.js';

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const SCHEMA_FILE = join('schemas', 'session-manifest.schema.json');

function parseName(value: string): string {
  if (!NAME.test(value)) {
    throw new InvalidArgumentError('a manifest name is lowercase letters, digits and hyphens (at most 63, no hyphen at either end), such as support-agent');
  }
  return value;
}

/** The schema as the package publishes it: `files` ships `schemas/`, `exports` names it `sessionctl/schema.json`. */
const PUBLISHED_SCHEMA = join('node_modules', 'sessionctl', SCHEMA_FILE);
/** A folder holding one of these is a project's root; the search for its schema stops there. */
const PROJECT_MARKERS = ['.git', 'package.json', 'sessionctl.yaml'];

/** The folders from `dir` up to its project's root (the first with a marker), or up to `fallbackRoot`. */
function foldersUp(dir: string, fallbackRoot: string): { folders: string[]; root: string } {
  const folders: string[] = [];
  for (let here = dir; ; here = dirname(here)) {
    folders.push(here);
    if (PROJECT_MARKERS.some((m) => existsSync(join(here, m)))) return { folders, root: here };
    if (dirname(here) === here) return { folders, root: fallbackRoot };
  }
}

/**
 * Where the modeline points, as seen from the new manifest's folder: the project's own copy of the
 * schema (`schemas/session-manifest.schema.json` in the folder or any folder above it, up to the
 * project's root) when there is one, else the copy the package publishes in the project's
 * `node_modules` (present once sessionctl is a dev dependency). Never the sessionctl that runs:
 * a global install's path means nothing on a colleague's machine or in CI.
 */
function schemaReference(targetDir: string, cwd: string): { ref: string; present: boolean } {
  const { folders, root } = foldersUp(targetDir, cwd);
  const relativeRef = (file: string): string => {
    const rel = relative(targetDir, file).split(sep).join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  for (const candidate of [SCHEMA_FILE, PUBLISHED_SCHEMA]) {
    for (const folder of folders) {
      if (existsSync(join(folder, candidate))) return { ref: relativeRef(join(folder, candidate)), present: true };
    }
  }
  return { ref: relativeRef(join(root, PUBLISHED_SCHEMA)), present: false };
}

export function starterManifest(name: string, schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}
# A Tool Router session, declared as code. Check it with: sessionctl validate ${name}.yaml
# Every key is described in the schema; your editor completes them through the line above.

# Identity in state files and reports (not sent to the service).
name: ${name}

# The end user the session acts for. \${VAR} comes from the environment; :- gives a default.
user_id: \${SESSION_USER_ID:-demo-user}

# Only these toolkits (an allowlist). Use \`disable: [...]\` instead for a denylist, never both.
toolkits:
  enable: [gmail, github]

# Per toolkit, exactly one of enable / disable / tags.
tools:
  github:
    disable: [GITHUB_DELETE_A_REPOSITORY]

# Let the agent start auth flows for toolkits the user has not connected yet.
manage_connections:
  enable: true

# No code execution in this session.
workbench:
  enable: false
`;
}

/**
 * Creates `path` with `text` only if it does not exist, and never leaves it half-written: the
 * text goes to a temporary file in the same folder first, which is then hard-linked into place
 * (`link` fails when the target exists, atomically) and removed.
 */
async function createExclusive(path: string, text: string): Promise<'created' | 'exists'> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.sessionctl-init.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return 'created';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw err;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** `sessionctl init [name]`: writes `<name>.yaml`, a starter manifest that validates clean. */
export const registerInit: RegisterCommand = (program, env) => {
  program
    .command('init')
    .description('Write a starter manifest, <name>.yaml, with the schema modeline for editor completion. Never overwrites a file.')
    .argument('[name]', 'the manifest name, also the file name (lowercase letters, digits, hyphens)', parseName, 'session')
    .option('--dir <folder>', 'write into this folder instead of the current one')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl init support-agent                 # writes ./support-agent.yaml',
        '  sessionctl init ci-bot --dir manifests        # writes manifests/ci-bot.yaml',
        '  sessionctl validate support-agent.yaml        # then check it',
        '',
        'The $schema line points at the project\'s schemas/session-manifest.schema.json when there is one',
        '(in the folder or above it), else at node_modules/sessionctl/schemas/session-manifest.schema.json.',
      ].join('\n'),
    )
    .action(async (name: string, options: { dir?: string }) => {
      const { io } = env;
      const dir = resolve(io.cwd, options.dir ?? '.');
      const path = join(dir, `${name}.yaml`);
      const shown = relative(io.cwd, path).split(sep).join('/') || path;
      const schema = schemaReference(dir, io.cwd);
      let outcome: 'created' | 'exists';
      try {
        outcome = await createExclusive(path, starterManifest(name, schema.ref));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'the folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String((err as Error).message);
        throw new InputError(`cannot write the manifest: ${why}`, shown, { cause: err });
      }
      if (outcome === 'exists') {
        throw new UsageError(`${shown} already exists; init never overwrites a file`, `choose another name: sessionctl init ${name}-2`);
      }
      io.stdout.write(`wrote ${shown}\nnext: sessionctl validate ${shown}\n`);
      if (!schema.present) {
        io.stdout.write(
          `note: the schema line points at ${schema.ref}, which is not there yet: add sessionctl as a dev dependency, ` +
            'or write the schema into the project with: sessionctl schema > schemas/session-manifest.schema.json\n',
        );
      }
    });
};
