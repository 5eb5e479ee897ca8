import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { allCommands } from '../../src/cli/commands/index.js';
import { memoryIo, type Io } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Inside GitHub Actions every sensitive value is registered with `::add-mask::` before anything
 * else is written, so the runner masks it in the raw log too. The registrations go to stderr (the
 * runner reads workflow commands there as well), which keeps stdout the report itself. An Io that
 * records both streams in the order they were written shows what the runner sees.
 */
const TOKEN = 'hooktoken-Qm4Zr8Wx2Lp';
const PASSWORD = 'pw-line-one\npw-line-two';
const KEY = 'ak_addmask_test_key_00001';

function orderedIo(env: Record<string, string>, cwd: string): Io & { writes: Array<{ stream: 'stdout' | 'stderr'; text: string }> } {
  const writes: Array<{ stream: 'stdout' | 'stderr'; text: string }> = [];
  return {
    ...memoryIo({ env, cwd }),
    stdout: { write: (text) => void writes.push({ stream: 'stdout', text }) },
    stderr: { write: (text) => void writes.push({ stream: 'stderr', text }) },
    writes,
  };
}

/** The lines in the order written, with the stream of each. */
function lines(io: ReturnType<typeof orderedIo>): Array<{ stream: string; line: string }> {
  return io.writes.flatMap((w) => w.text.split('\n').filter((l) => l !== '').map((line) => ({ stream: w.stream, line })));
}

let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  dir = tempDir('add-mask');
  await writeFile(join(dir, 'support.yaml'), 'name: support\nuser_id: u1\ntoolkits: [gmail]\nmanage_connections:\n  callback_url: "https://hooks.example.com/cb?token=${HOOK_TOKEN}"\nworkbench:\n  sandbox_size: ${SIZE}\n');
});
afterAll(() => emulator.close());

describe('::add-mask:: inside GitHub Actions', () => {
  const env = (): Record<string, string> => ({ GITHUB_ACTIONS: 'true', CI: 'true', COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emulator.url, HOOK_TOKEN: TOKEN, DB_PASSWORD: PASSWORD, SIZE: 'standard' });

  test.each([
    // The size is declared sensitive and is not one the schema allows: the finding quotes it.
    ['validate --format github', ['validate', 'support.yaml', '--format', 'github', '--sensitive', 'SIZE'], { SIZE: 'size-Tq7Vb3Nc9' }, 1, ['size-Tq7Vb3Nc9']],
    ['apply --verbose --format github', ['apply', 'support.yaml', '--verbose', '--format', 'github', '--sensitive', 'DB_PASSWORD'], {}, 0, ['pw-line-one', 'pw-line-two']],
    ['plan (the default formats: human, annotations, step summary)', ['plan', 'support.yaml', '--sensitive', 'DB_PASSWORD'], {}, 0, ['pw-line-one', 'pw-line-two']],
  ])('%s: the masks come first, one a line, and the values are in no other line', async (_name, argv, more, exit, values) => {
    const io = orderedIo({ ...env(), ...more }, dir);
    const code = await runCli(argv, io, allCommands);
    expect(code).toBe(exit);
    const all = lines(io);
    const first = all.findIndex((l) => !l.line.startsWith('::add-mask::'));
    expect(first).toBeGreaterThan(0);
    const masks = all.slice(0, first);
    expect(masks.every((m) => m.stream === 'stderr')).toBe(true);
    const expected = [KEY, `https://hooks.example.com/cb?token=${TOKEN}`, TOKEN, ...values];
    expect(new Set(masks.map((m) => m.line))).toEqual(new Set(expected.map((v) => `::add-mask::${v}`)));
    // Nothing was written before them, and no later line registers or shows a value.
    expect(all.slice(first).some((l) => l.line.startsWith('::add-mask::'))).toBe(false);
    const rest = all.slice(first).map((l) => l.line).join('\n');
    for (const value of [TOKEN, KEY, ...values]) expect(rest).not.toContain(value);
  });

  test('outside GitHub Actions nothing is registered', async () => {
    const { GITHUB_ACTIONS: _, ...plain } = env();
    const io = orderedIo(plain, dir);
    expect(await runCli(['plan', 'support.yaml', '--format', 'github'], io, allCommands)).toBe(0);
    expect(lines(io).some((l) => l.line.includes('add-mask'))).toBe(false);
  });
});
