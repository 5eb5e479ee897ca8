import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * docs/first-hour.md, executed step by step: each `yaml title="FILE"` block is written, each
 * `$ sessionctl ...` line of a `console` block runs in order against a real emulator, and its
 * standard output must be the lines the page shows under it (session ids as `trs_<id>`, the
 * emulator at the default port the page names). The `export` lines of the page are what the run's
 * environment holds.
 */
const page = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../docs/first-hour.md'), 'utf8');

type Step = { kind: 'file'; path: string; text: string } | { kind: 'run'; argv: string[]; expected: string };

function steps(markdown: string): Step[] {
  const out: Step[] = [];
  for (const m of markdown.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const [, lang, info, body] = m as unknown as [string, string, string, string];
    const title = /title="([^"]+)"/.exec(info)?.[1];
    if (lang === 'yaml' && title !== undefined) out.push({ kind: 'file', path: title, text: body });
    if (lang !== 'console') continue;
    for (const chunk of body.split(/^\$ /m).slice(1)) {
      const [command, ...lines] = chunk.split('\n');
      out.push({ kind: 'run', argv: command!.trim().split(/\s+/).slice(1), expected: lines.join('\n').replace(/\n+$/, '\n') });
    }
  }
  return out;
}

/** The variables the page exports. */
function exported(markdown: string): Record<string, string> {
  return Object.fromEntries([...markdown.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(() => emulator.close());

describe('docs/first-hour.md', () => {
  test('the page names the emulator\'s default port and the walk-through has steps', () => {
    expect(exported(page)).toStrictEqual({ COMPOSIO_BASE_URL: 'http://127.0.0.1:4010', COMPOSIO_API_KEY: 'anything' });
    expect(steps(page).filter((s) => s.kind === 'run').length).toBeGreaterThanOrEqual(5);
  });

  test('every step runs as the page shows it', async () => {
    const dir = tempDir('first-hour');
    // The page's emulator listens on its default port; this run's on a free one, put in its place.
    const env = { ...exported(page), COMPOSIO_BASE_URL: emulator.url };
    const normalise = (text: string): string => text.split(emulator.url).join('http://127.0.0.1:4010').replace(/trs_[A-Za-z0-9_-]{12}/g, 'trs_<id>');
    for (const step of steps(page)) {
      if (step.kind === 'file') {
        mkdirSync(dirname(join(dir, step.path)), { recursive: true });
        writeFileSync(join(dir, step.path), step.text);
        continue;
      }
      const r = await runCli(step.argv, { cwd: dir, env });
      expect(r.exitCode, `${step.argv.join(' ')}\n${r.stderr}`).toBe(0);
      expect(normalise(r.stdout), step.argv.join(' ')).toBe(step.expected);
    }
  });
});
