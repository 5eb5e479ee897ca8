import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The newcomer's pages, executed step by step: docs/first-hour.md, and the README's "Five minutes
 * with the emulator". The emulator starts as the page says (`npx sessionctl emulator`, the built
 * CLI, on a free port instead of 4010, which another run may hold), and its announcement must be
 * the one the page shows; each `yaml title="FILE"` block is written; each `$ npx sessionctl ...`
 * line of a `console` block runs in order with the variables the page exports, and its standard
 * output must be the lines the page shows under it (session ids as `trs_<id>`). A shell command the
 * test does not know how to run fails it, so that a page cannot grow a step no test executes.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const DEFAULT_URL = 'http://127.0.0.1:4010';

type Step =
  | { kind: 'file'; path: string; text: string }
  | { kind: 'run'; argv: string[]; expected: string }
  | { kind: 'emulator'; announced: string }
  | { kind: 'export'; name: string; value: string }
  | { kind: 'elsewhere'; command: string };

/** Commands of the pages that other tests run: `npm ci && npm start` is test/e2e/npm-start.test.ts. */
const RUN_ELSEWHERE = new Set(['npm ci && npm start']);

/** One shell line of an `sh` block, as a step; a line the test cannot run throws. */
function shellStep(line: string): Step | undefined {
  const [command = '', comment = ''] = line.split(/\s+#\s+/, 2);
  if (command.trim() === '') return undefined;
  const exported = /^export (\w+)=(\S+)$/.exec(command.trim());
  if (exported !== null) return { kind: 'export', name: exported[1]!, value: exported[2]! };
  if (command.trim() === 'npx sessionctl emulator') return { kind: 'emulator', announced: comment.trim() };
  if (RUN_ELSEWHERE.has(command.trim())) return { kind: 'elsewhere', command: command.trim() };
  throw new Error(`the page asks the reader to run \`${command.trim()}\`, which this test does not run`);
}

function steps(markdown: string): Step[] {
  const out: Step[] = [];
  for (const m of markdown.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const [, lang, info, body] = m as unknown as [string, string, string, string];
    const title = /title="([^"]+)"/.exec(info)?.[1];
    if (lang === 'yaml' && title !== undefined) out.push({ kind: 'file', path: title, text: body });
    if (lang === 'sh') for (const line of body.split('\n')) out.push(...[shellStep(line)].filter((s) => s !== undefined));
    if (lang !== 'console') continue;
    for (const chunk of body.split(/^\$ /m).slice(1)) {
      const [command, ...lines] = chunk.split('\n');
      const argv = command!.trim().split(/\s+/);
      expect(argv.slice(0, 2), command).toStrictEqual(['npx', 'sessionctl']);
      out.push({ kind: 'run', argv: argv.slice(2), expected: lines.join('\n').replace(/\n+$/, '\n') });
    }
  }
  return out;
}

/** The README's section, from its heading to the next one of its level. */
function section(markdown: string, heading: string): string {
  const from = markdown.indexOf(`\n${heading}\n`);
  expect(from, heading).toBeGreaterThan(-1);
  const to = markdown.indexOf('\n## ', from + heading.length + 1);
  return markdown.slice(from, to === -1 ? undefined : to);
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** `sessionctl emulator --port 0` (the built CLI): its URL, and the line it announces itself with. */
async function startEmulatorCommand(cwd: string): Promise<{ url: string; announced: string }> {
  const child = spawn(process.execPath, [join(root, 'dist/sessionctl.js'), 'emulator', '--port', '0'], { cwd, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the emulator ended (${code}): ${err}`)));
    const ready = (): void => {
      if (out.includes('\n') && err.includes('\n')) resolve({ url: out.split('\n')[0]!, announced: err.split('\n')[0]! });
    };
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      ready();
    });
    child.stderr!.on('data', ready);
  });
}

/** Runs a page's steps in a folder of its own, as a reader would. */
async function walk(page: string): Promise<void> {
  const dir = tempDir('first-hour');
  const env: Record<string, string> = {};
  let url: string | undefined;
  const normalise = (text: string): string => (url === undefined ? text : text.split(url).join(DEFAULT_URL)).replace(/trs_[A-Za-z0-9_-]{12}/g, 'trs_<id>');
  const all = steps(page);
  expect(all.filter((s) => s.kind === 'emulator')).toHaveLength(1);
  for (const step of all) {
    if (step.kind === 'emulator') {
      const started = await startEmulatorCommand(dir);
      url = started.url;
      expect(normalise(started.announced).startsWith(step.announced), started.announced).toBe(true);
    } else if (step.kind === 'export') {
      // The page's emulator listens on its default port; this run's on a free one, put in its place.
      env[step.name] = step.value === DEFAULT_URL && url !== undefined ? url : step.value;
    } else if (step.kind === 'file') {
      mkdirSync(dirname(join(dir, step.path)), { recursive: true });
      writeFileSync(join(dir, step.path), step.text);
    } else if (step.kind === 'run') {
      const r = await runCli(step.argv, { cwd: dir, env });
      expect(r.exitCode, `${step.argv.join(' ')}\n${r.stderr}`).toBe(0);
      expect(normalise(r.stdout), step.argv.join(' ')).toBe(step.expected);
    }
  }
}

const pages = {
  'docs/first-hour.md': read('docs/first-hour.md'),
  "README.md's five minutes": section(read('README.md'), '## Five minutes with the emulator'),
};

describe.each(Object.entries(pages))('%s', (_name, page) => {
  test('points the CLI at the emulator\'s default port with any key, and has steps to run', () => {
    const all = steps(page);
    expect(Object.fromEntries(all.flatMap((s) => (s.kind === 'export' ? [[s.name, s.value]] : [])))).toStrictEqual({ COMPOSIO_BASE_URL: DEFAULT_URL, COMPOSIO_API_KEY: 'anything' });
    expect(all.filter((s) => s.kind === 'run').map((s) => s.argv[0])).toEqual(expect.arrayContaining(['validate', 'apply']));
  });

  test('every step runs as the page shows it', { timeout: 60_000 }, async () => {
    await walk(page);
  });
});
