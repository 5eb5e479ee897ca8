import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';
import { InputError, UsageError } from '../../errors.js';
import type { RegisterCommand } from '../program.js';

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const SCHEMA_FILE = 'session-manifest.schema.json';
const CONFIG_SCHEMA_FILE = 'sessionctl-config.schema.json';
const SCHEMA_BASE_URL = 'https://sessionctl.dev/schemas/';

function parseName(value: string): string {
  if (!NAME.test(value)) {
    throw new InvalidArgumentError('a manifest name is lowercase letters, digits and hyphens (at most 63, no hyphen at either end), such as support-agent');
  }
  return value;
}

/** A shipped schema file: found by walking up from this module to the sessionctl package root. */
function findSchema(name: string): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'schemas', name);
    const pkg = join(dir, 'package.json');
    if (existsSync(candidate) && existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'sessionctl') return candidate;
      } catch {
        // Not our package.json; keep walking.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** The modeline target as seen from the new file's folder: a relative path when one exists. */
function schemaReference(targetDir: string, name: string = SCHEMA_FILE): string {
  const schema = findSchema(name);
  if (schema === undefined) return `${SCHEMA_BASE_URL}${name}`;
  const rel = relative(targetDir, schema).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
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

/** Writes a new file (never over an existing one), or says why it cannot. */
async function writeNew(path: string, text: string, shown: string, what: string, otherwise: string): Promise<void> {
  let outcome: 'created' | 'exists';
  try {
    outcome = await createExclusive(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'the folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String((err as Error).message);
    throw new InputError(`cannot write the ${what}: ${why}`, shown, { cause: err });
  }
  if (outcome === 'exists') throw new UsageError(`${shown} already exists; init never overwrites a file`, otherwise);
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
        '  sessionctl init ci-bot --dir manifests        # writes manifests/ci-bot.yaml',
        '  sessionctl validate support-agent.yaml        # then check it',
        '  sessionctl init --config                      # writes ./sessionctl.yaml, the project configuration',
      ].join('\n'),
    )
    .action(async (name: string, options: { dir?: string; config?: boolean }) => {
      const { io } = env;
      const dir = resolve(io.cwd, options.dir ?? '.');
      const show = (path: string): string => relative(io.cwd, path).split(sep).join('/') || path;
      if (options.config === true) {
        const path = join(dir, 'sessionctl.yaml');
        const { starterProjectConfig } = await import('../../project/starter.js');
        await writeNew(path, starterProjectConfig(schemaReference(dir, CONFIG_SCHEMA_FILE)), show(path), 'project configuration', 'edit the existing file, or pass --dir for another folder');
        io.stdout.write(`wrote ${show(path)}\nnext: sessionctl validate   # checks the paths it names\n`);
        return;
      }
      const path = join(dir, `${name}.yaml`);
      await writeNew(path, starterManifest(name, schemaReference(dir)), show(path), 'manifest', `choose another name: sessionctl init ${name}-2`);
      io.stdout.write(`wrote ${show(path)}\nnext: sessionctl validate ${show(path)}\n`);
    });
};
