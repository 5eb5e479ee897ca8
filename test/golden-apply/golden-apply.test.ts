import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { version } from '../../src/version.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Golden scenarios for plan, apply and diff. Each folder holds manifests (under `m/`) and a
 * `case.json`: setup steps run against a real emulator (apply, rewrite a manifest, inject drift
 * through the admin API, add a fault), then the command under test, rendered in each format and
 * compared with the `expected.*` files. Every format gets a fresh copy of the folder and a reset
 * emulator. Session ids, request ids, the emulator's URL and times vary per run and are
 * normalised. Update with `npm run test:update -- test/golden-apply` and read the diff.
 *
 * `<closed>` in the arguments is the URL of a loopback port nothing listens on (an unreachable
 * service). A case with `"untouched": true` also checks that the command created, updated and
 * deleted nothing (no such request reached the emulator) and left the state file's bytes as they were.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const formats = [
  ['human', 'expected.human.txt'],
  ['json', 'expected.json'],
  ['github', 'expected.github.txt'],
  ['sarif', 'expected.sarif.json'],
  ['junit', 'expected.junit.xml'],
  ['markdown', 'expected.markdown.md'],
] as const;

type Step =
  | { run: string[]; exit?: number }
  | { write: string; text: string }
  | { remove: string }
  | { drift: string; config?: unknown; tool_router_tools?: string[] }
  | { fault: Record<string, unknown> };

interface GoldenCase {
  setup?: Step[];
  args: string[];
  exit: number;
  untouched?: boolean;
}

const cases = readdirSync(here)
  .filter((name) => statSync(join(here, name)).isDirectory())
  .sort();

const validateReport = new Ajv({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(join(here, '../../schemas/report.schema.json'), 'utf8')) as object);

let emulator: RunningEmulator;
/** A loopback URL that refuses connections: a port bound and closed again. */
let closed: string;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closed = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(() => emulator.close());

const env = (): Record<string, string> => ({ COMPOSIO_BASE_URL: emulator.url, COMPOSIO_API_KEY: 'golden-apply-key-0001' });

async function admin(method: string, path: string, body?: unknown): Promise<string> {
  const res = await fetch(`${emulator.url}/_emulator/${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  const text = await res.text();
  expect(res.ok, text).toBe(true);
  return text;
}

/** What a run could have changed: the requests that create, update or delete that reached the emulator, and the state file's bytes. */
async function changeable(dir: string): Promise<unknown> {
  const { routes } = JSON.parse(await admin('GET', 'stats')) as { routes: Record<string, unknown> };
  const state = join(dir, '.sessionctl', 'state.json');
  return { create: routes['create'], update: routes['update'], delete: routes['delete'], state: existsSync(state) ? readFileSync(state, 'utf8') : null };
}

function sessionOf(dir: string, name: string): string {
  const state = JSON.parse(readFileSync(join(dir, '.sessionctl', 'state.json'), 'utf8')) as { sessions: Array<{ name: string; session_id: string }> };
  return state.sessions.find((s) => s.name === name)!.session_id;
}

async function setUp(dir: string, steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    if ('run' in step) {
      const r = await runCli(step.run, { cwd: dir, env: env() });
      expect(r.exitCode, r.stdout + r.stderr).toBe(step.exit ?? 0);
    } else if ('write' in step) writeFileSync(join(dir, step.write), step.text);
    else if ('remove' in step) rmSync(join(dir, step.remove));
    else if ('drift' in step) await admin('POST', `sessions/${sessionOf(dir, step.drift)}/config`, { config: step.config, tool_router_tools: step.tool_router_tools });
    else await admin('POST', 'faults', step.fault);
  }
}

/** Ids in order of first appearance become trs_<1>, trs_<2>, ... so that output stays comparable. */
function normalise(text: string, dir: string): string {
  const ids = new Map<string, string>();
  return text
    .split(dir)
    .join('.')
    .split(emulator.url)
    .join('<emulator>')
    .split(closed)
    .join('<closed>')
    .split(version)
    .join('<version>')
    // Markdown escapes the underscores of an id in a message (`trs\_…`); it is the same id.
    .replace(/trs(\\?)_((?:\\_|[A-Za-z0-9_-]){12})/g, (_all, escaped: string, rest: string) => {
      const id = `trs_${rest.replaceAll('\\', '')}`;
      if (!ids.has(id)) ids.set(id, `<${ids.size + 1}>`);
      return `trs${escaped}_${ids.get(id)!}`;
    })
    // Markdown escapes the underscore (`req\_…`); the id is random either way.
    .replace(/req(\\?)_[A-Za-z0-9]+/g, 'req$1_<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
}

/** SARIF carries the whole (growing) code catalogue: keep only the rules this case's results use. */
function stableSarif(text: string): string {
  const log = JSON.parse(text) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; ruleIndex?: number | string }> }> };
  for (const run of log.runs) {
    for (const result of run.results) {
      expect(run.tool.driver.rules[result.ruleIndex as number]?.id).toBe(result.ruleId);
      result.ruleIndex = '<index>';
    }
    const used = new Set(run.results.map((r) => r.ruleId));
    run.tool.driver.rules = run.tool.driver.rules.filter((r) => used.has(r.id));
  }
  return `${JSON.stringify(log, null, 2)}\n`;
}

describe('golden plan, apply and diff', () => {
  it('has cases for each command', () => {
    const commands = new Set(cases.map((c) => (JSON.parse(readFileSync(join(here, c, 'case.json'), 'utf8')) as GoldenCase).args[0]));
    expect([...commands].sort()).toEqual(['apply', 'diff', 'plan']);
  });

  describe.each(cases)('%s', (name) => {
    const spec = JSON.parse(readFileSync(join(here, name, 'case.json'), 'utf8')) as GoldenCase;

    it.each(formats)('%s', async (format, file) => {
      await admin('POST', 'reset');
      const dir = tempDir(`golden-apply-${name}`);
      try {
        cpSync(join(here, name, 'm'), join(dir, 'm'), { recursive: true });
        await setUp(dir, spec.setup ?? []);
        const stateFile = join(dir, '.sessionctl', 'state.json');
        const fresh = !spec.args.includes('--state') && !existsSync(stateFile);
        const before = await changeable(dir);
        const r = await runCli([...spec.args.map((a) => (a === '<closed>' ? closed : a)), '--format', format], { cwd: dir, env: env() });
        if (spec.untouched === true) expect(await changeable(dir)).toStrictEqual(before);
        // stderr carries only progress, one line per manifest as it finishes (in finishing order),
        // after the one line that says a run starts the state when there was none.
        const lines = r.stderr.split('\n').filter((l) => l !== '');
        expect(lines.slice(0, fresh ? 1 : 0)).toEqual(fresh ? [`note: new state at ${stateFile} (nothing is recorded there yet)`] : []);
        const progress = lines.slice(fresh ? 1 : 0);
        expect(progress.filter((l) => !/^\[\d+\/\d+\] (created|updated|replaced|deleted|unchanged|failed|unknown|skipped) \S+/.test(l))).toEqual([]);
        expect(progress.length).toBe(spec.args[0] === 'apply' && !spec.args.includes('--dry-run') ? (JSON.parse(readFileSync(join(here, name, 'expected.json'), 'utf8')) as { applied?: { items: unknown[] } }).applied?.items.length ?? 0 : 0);
        expect(r.exitCode).toBe(spec.exit);
        const out = normalise(r.stdout, dir);
        if (format === 'json') expect(validateReport(JSON.parse(r.stdout)), JSON.stringify(validateReport.errors)).toBe(true);
        await expect(format === 'sarif' ? stableSarif(out) : out).toMatchFileSnapshot(join(here, name, file));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
