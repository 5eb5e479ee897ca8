import { join, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import { createNewFile } from '../../util/atomic-write.js';
import type { RegisterCommand } from '../command.js';
import { CONFIG_SCHEMA, schemaReference } from '../schema-reference.js';

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

function parseName(value: string): string {
  if (!NAME.test(value)) {
    throw new InvalidArgumentError('a manifest name is lowercase letters, digits and hyphens (at most 63, no hyphen at either end), such as support-agent');
  }
  return value;
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

/** Writes a new file (never over an existing one), or says why it cannot. */
async function writeNew(path: string, text: string, shown: string, what: string, otherwise: string): Promise<void> {
  let outcome: 'created' | 'exists';
  try {
    outcome = await createNewFile(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'the folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String((err as Error).message);
    throw new InputError(`cannot write the ${what}: ${why}`, shown, { cause: err });
  }
  if (outcome === 'exists') throw new UsageError(`${shown} already exists; init never overwrites a file`, otherwise);
}

/** The language server gives validate's findings while typing; docs/editors.md says how to start it from an editor. */
const EDITOR_NOTE = 'editor: `sessionctl lsp` shows these findings as you type, with completion of tools and quick fixes (docs/editors.md)\n';

/** Says where a modeline points when the schema is not there yet, and how to put it there. */
function schemaNote(schema: { ref: string; present: boolean }, write: string): string {
  if (schema.present) return '';
  return `note: the schema line points at ${schema.ref}, which is not there yet: add sessionctl as a dev dependency, or write the schema into the project with: ${write}\n`;
}

/**
 * `sessionctl init [name]`: writes `<name>.yaml`, a starter manifest that validates clean;
 * `sessionctl init --config` writes `sessionctl.yaml`, a commented project configuration.
 */
export const registerInit: RegisterCommand = (program, env) => {
  program
    .command('init')
    .description('Write a starter manifest, <name>.yaml (or with --config, a project configuration, sessionctl.yaml), with the schema modeline for editor completion. Never overwrites a file.')
    .argument('[name]', 'the manifest name, also the file name (lowercase letters, digits, hyphens)', parseName, 'session')
    .option('--dir <folder>', 'write into this folder instead of the current one')
    .option('--config', 'write sessionctl.yaml, the project configuration: default paths and formats, rule severities, overrides, policies')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl init support-agent                 # writes ./support-agent.yaml',
        '  sessionctl init ci-bot --dir sessions         # writes sessions/ci-bot.yaml',
        '  sessionctl validate support-agent.yaml        # then check it',
        '  sessionctl init --config                      # writes ./sessionctl.yaml, the project configuration',
        '',
        "The $schema line points at the project's schemas/<schema>.json when there is one (in the folder",
        'or above it), else at node_modules/sessionctl/schemas/<schema>.json.',
      ].join('\n'),
    )
    .action(async (name: string, options: { dir?: string; config?: boolean }) => {
      const { io } = env;
      const dir = resolve(io.cwd, options.dir ?? '.');
      const show = (path: string): string => relative(io.cwd, path).split(sep).join('/') || path;
      if (options.config === true) {
        const path = join(dir, 'sessionctl.yaml');
        const { starterProjectConfig, STARTER_FOLDER } = await import('../../project/starter.js');
        const schema = schemaReference(dir, io.cwd, CONFIG_SCHEMA);
        await writeNew(path, starterProjectConfig(schema.ref), show(path), 'project configuration', 'edit the existing file, or pass --dir for another folder');
        const folder = show(join(dir, STARTER_FOLDER));
        io.stdout.write(`wrote ${show(path)}\nnext: mkdir -p ${folder} && sessionctl init NAME --dir ${folder}   # a manifest where its paths look\nthen: sessionctl validate   # checks the paths it names\n${EDITOR_NOTE}`);
        io.stdout.write(schemaNote(schema, 'sessionctl schema --config > schemas/sessionctl-config.schema.json'));
        return;
      }
      const path = join(dir, `${name}.yaml`);
      const schema = schemaReference(dir, io.cwd);
      await writeNew(path, starterManifest(name, schema.ref), show(path), 'manifest', `choose another name: sessionctl init ${name}-2`);
      io.stdout.write(`wrote ${show(path)}\nnext: sessionctl validate ${show(path)}\n${EDITOR_NOTE}`);
      io.stdout.write(schemaNote(schema, 'sessionctl schema > schemas/session-manifest.schema.json'));
    });
};
