import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, type SessionClient } from '../../src/client/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Every operate command (get, toolkits, tools, search, execute, execute-meta, link, proxy, files
 * ...) run in-process through `runCli` against the real emulator over loopback HTTP, in human and
 * JSON output, including the error paths: tool failures (HTTP 200 with `error`, exit 1), service
 * errors (401, 403, 404, malformed id 400, exit 3) and usage errors (bad --arg, unknown or
 * ambiguous manifest names, exit 2). Each case's stdout, stderr and exit code are compared with a
 * golden file in test/golden-operate/ after ids, URLs and times are normalised.
 */

const KEY = 'ak_operate_golden_5c1d9e7f';
let emu: RunningEmulator;
let client: SessionClient;
let dir: string;
/** Real value -> stable name in the golden files. */
const known = new Map<string, string>();
let support = '';

function admin(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
  return emulatorAdmin(emu.url, method, path, body, KEY);
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
  client = createClient({ baseUrl: emu.url, apiKey: KEY });
  dir = tempDir('operate');
  const s1 = await client.createSession({ user_id: 'alice', toolkits: { enable: ['github', 'gmail', 'hackernews'] } });
  const s2 = await client.createSession({ user_id: 'bob', toolkits: { enable: ['hackernews'] }, workbench: { enable: false } });
  const s3 = await client.createSession({ user_id: 'carol', toolkits: { enable: ['hackernews'] }, workbench: { enable: false } });
  support = s1.session_id;
  known.set(s1.session_id, 'trs_SUPPORT0000').set(s2.session_id, 'trs_TRIAGEBOB00').set(s3.session_id, 'trs_TRIAGECAROL');
  // Connect github for alice: link, then complete the flow as the user's browser would.
  const link = await client.link(s1.session_id, { toolkit: 'github' });
  await admin('GET', `/link/${link.link_token}`);
  known.set(link.connected_account_id, 'ca_GITHUB00000').set(link.link_token, 'lt_GITHUB');
  const entry = (name: string, user: string, s: typeof s1) => ({
    name,
    user_id: user,
    session_id: s.session_id,
    mcp_url: s.mcp.url,
    tool_router_tools: s.tool_router_tools,
    body_hash: 'sha256-not-checked-here',
    applied_at: '2026-01-01T00:00:00.000Z',
  });
  await writeFile(
    join(dir, 'state.json'),
    JSON.stringify({ version: 1, sessions: [entry('support-agent', 'alice', s1), entry('triage', 'bob', s2), entry('triage', 'carol', s3)] }, null, 2),
  );
  await writeFile(join(dir, 'args.json'), '{\n  "owner": "octocat",\n  "repo": "hello-world"\n}\n');
  await writeFile(join(dir, 'bad-args.json'), '{\n  "owner": "octocat",\n  "repo": hello\n}\n');
  await writeFile(join(dir, 'list-args.json'), '["octocat"]\n');
  await writeFile(join(dir, 'body.json'), '{"name": "hello-world", "private": true}\n');
  await writeFile(join(dir, 'notes.txt'), 'meeting notes\nline two\n');
  await mkdir(join(dir, 'downloads'));
});

afterAll(async () => {
  await client.close();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

/** Stable text: known ids by name, other ids by order of appearance, URLs and times as placeholders. */
function normalise(text: string): string {
  let out = text;
  for (const [real, name] of known) out = out.split(real).join(name);
  out = out.split(emu.url).join('http://emulator').split(dir).join('<tmp>');
  const seen = new Map<string, string>();
  const seq = (prefix: string) => (m: string) => {
    if (!seen.has(m)) seen.set(m, `${prefix}${String([...seen.values()].filter((v) => v.startsWith(prefix)).length + 1).padStart(2, '0')}`);
    return seen.get(m) as string;
  };
  // Ids are base64url: they may end in '-' or '_', where \b would not match.
  out = out.replace(/\bca_[A-Za-z0-9_-]{12}(?![A-Za-z0-9_-])/g, seq('ca_NEW'));
  out = out.replace(/\blt_[A-Za-z0-9_-]{16}(?![A-Za-z0-9_-])/g, seq('lt_NEW'));
  out = out.replace(/\breq_[0-9a-f]{16}\b/g, 'req_<id>');
  // Log ids are `log_<session id without trs_>_<n>`.
  for (const [real, name] of known) if (real.startsWith('trs_')) out = out.split(`log_${real.slice(4)}_`).join(`log_${name.slice(4)}_`);
  out = out.replace(/\/_emulator\/files\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '/_emulator/files/<token>');
  out = out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  out = out.replace(/("current_time_utc_epoch_seconds": )\d+/g, '$1<epoch>');
  out = out.replace(/\(\d+ ms\)/g, '(<ms>)');
  out = out.replace(/^(< date: ).*$/gm, '$1<date>');
  return out;
}

interface Case {
  name: string;
  argv: string[];
  exit: number;
  env?: Record<string, string>;
  stdin?: string;
  /** Leave out --base-url (the case sets COMPOSIO_BASE_URL or needs no network). */
  noBaseUrl?: boolean;
  /** A scripted failure for the emulator's next request on a route (admin /faults). */
  fault?: Record<string, unknown>;
}

function fill(text: string): string {
  return text.split('@S').join(support).split('@URL').join(emu.url);
}

async function run(c: Case): Promise<CliResult> {
  if (c.fault !== undefined) await admin('POST', '/faults', c.fault);
  const argv = c.argv.map(fill);
  if (c.noBaseUrl !== true) argv.push('--base-url', emu.url);
  const env = Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, fill(v)]));
  return runCli(argv, {
    cwd: dir,
    env: { COMPOSIO_API_KEY: KEY, COLUMNS: '100', ...env },
    ...(c.stdin !== undefined ? { stdin: c.stdin } : {}),
  });
}

/** As a POSIX shell would need it, so the golden's command line can be pasted. */
function quote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function golden(c: Case, r: CliResult): string {
  return normalise(`$ sessionctl ${c.argv.map(fill).map(quote).join(' ')}\nexit ${r.exitCode}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
}

/** In order: later cases see what earlier ones did (a link, an upload). `@S` is alice's session id, `@URL` the emulator. */
const cases: Case[] = [
  // get
  ({ name: 'get-id-human', argv: ['get', '@S'], exit: 0 }),
  ({ name: 'get-id-json', argv: ['get', '@S', '--format', 'json'], exit: 0 }),
  { name: 'get-name-human', argv: ['get', 'support-agent', '--state', 'state.json'], exit: 0 },
  { name: 'get-name-user-id', argv: ['get', 'triage', '--user-id', 'carol', '--state', 'state.json', '--format', 'json'], exit: 0 },
  { name: 'get-name-ambiguous', argv: ['get', 'triage', '--state', 'state.json'], exit: 2 },
  { name: 'get-name-unknown', argv: ['get', 'billing-bot', '--state', 'state.json'], exit: 2 },
  { name: 'get-name-no-state', argv: ['get', 'support-agent'], exit: 2 },
  { name: 'get-name-unknown-user', argv: ['get', 'triage', '--user-id', 'dave', '--state', 'state.json'], exit: 2 },
  { name: 'get-not-found-404', argv: ['get', 'trs_doesnotexist'], exit: 3 },
  { name: 'get-malformed-id', argv: ['get', 'trs_'], exit: 2 },
  { name: 'get-json-not-found-404', argv: ['get', 'trs_doesnotexist', '--format', 'json'], exit: 3 },
  ({ name: 'get-bad-key-401', argv: ['get', '@S'], exit: 3, env: { COMPOSIO_API_KEY: 'ak_wrong_key_000000' } }),
  ({ name: 'get-verbose-401', argv: ['get', '@S', '--verbose'], exit: 3, env: { COMPOSIO_API_KEY: 'ak_wrong_key_000000' } }),
  ({ name: 'get-no-key', argv: ['get', '@S'], exit: 2, env: { COMPOSIO_API_KEY: '' } }),
  ({ name: 'get-base-url-env', argv: ['get', '@S', '--format', 'json'], exit: 0, noBaseUrl: true, env: { COMPOSIO_BASE_URL: '@URL' } }),
  // toolkits
  ({ name: 'toolkits-human', argv: ['toolkits', '@S'], exit: 0 }),
  ({ name: 'toolkits-json', argv: ['toolkits', '@S', '--format', 'json'], exit: 0 }),
  ({ name: 'toolkits-limit-human', argv: ['toolkits', '@S', '--limit', '2'], exit: 0 }),
  ({ name: 'toolkits-limit-json', argv: ['toolkits', '@S', '--limit', '2', '--format', 'json'], exit: 0 }),
  ({ name: 'toolkits-connected', argv: ['toolkits', '@S', '--connected'], exit: 0 }),
  ({ name: 'toolkits-search', argv: ['toolkits', '@S', '--search', 'mail'], exit: 0 }),
  ({ name: 'toolkits-toolkit-filter', argv: ['toolkits', '@S', '--toolkit', 'slack', '--toolkit', 'github'], exit: 0 }),
  ({ name: 'toolkits-all-and-limit', argv: ['toolkits', '@S', '--all', '--limit', '5'], exit: 2 }),
  ({ name: 'toolkits-bad-limit', argv: ['toolkits', '@S', '--limit', 'ten'], exit: 2 }),
  // tools
  ({ name: 'tools-human', argv: ['tools', '@S'], exit: 0 }),
  ({ name: 'tools-narrow', argv: ['tools', '@S'], exit: 0, env: { COLUMNS: '60' } }),
  ({ name: 'tools-json', argv: ['tools', '@S', '--format', 'json'], exit: 0 }),
  // search
  ({ name: 'search-human', argv: ['search', '@S', 'star a github repository', '--known-fields', 'owner:octocat,repo:hello-world'], exit: 0 }),
  ({ name: 'search-json', argv: ['search', '@S', 'star a github repository', '--format', 'json'], exit: 0 }),
  ({ name: 'search-nothing-found', argv: ['search', '@S', 'zzqx qqvv'], exit: 1 }),
  ({ name: 'search-partly-found-json', argv: ['search', '@S', 'star a github repository', 'zzqx qqvv', '--format', 'json'], exit: 1 }),
  ({ name: 'search-bad-known-fields', argv: ['search', '@S', 'star a repo', '--known-fields', 'octocat'], exit: 2 }),
  ({ name: 'search-too-many', argv: ['search', '@S', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], exit: 2 }),
  // execute
  ({
    name: 'execute-human',
    argv: ['execute', '@S', 'GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER', '--arg', 'owner=octocat', '--arg', 'repo=hello-world'],
    exit: 0,
  }),
  ({ name: 'execute-json', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE', '--arg', 'n=3', '--arg', 'flags={"top":true}', '--format', 'json'], exit: 0 }),
  ({ name: 'execute-args-file', argv: ['execute', '@S', 'GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER', '--args-file', 'args.json', '--arg', 'repo=spoon-knife'], exit: 0 }),
  ({
    name: 'execute-args-stdin',
    argv: ['execute', '@S', 'GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER', '--args-file', '-', '--format', 'json'],
    exit: 0,
    stdin: '{"owner": "octocat", "repo": "linguist"}',
  }),
  ({ name: 'execute-tool-failure-human', argv: ['execute', '@S', 'GMAIL_SEND_EMAIL', '--arg', 'recipient_email=a@example.com'], exit: 1 }),
  ({ name: 'execute-tool-failure-json', argv: ['execute', '@S', 'GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER', '--arg', 'owner=octocat', '--format', 'json'], exit: 1 }),
  ({ name: 'execute-server-500', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE'], exit: 3, fault: { route: 'execute', status: 500 } }),
  ({ name: 'execute-unknown-tool-400', argv: ['execute', '@S', 'NOT_A_TOOL'], exit: 3 }),
  ({ name: 'execute-bad-arg', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE', '--arg', 'n=3', '--arg', 'verbose'], exit: 2 }),
  ({ name: 'execute-duplicate-arg', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE', '--arg', 'n=3', '--arg', 'n=4'], exit: 2 }),
  ({ name: 'execute-bad-args-file', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE', '--args-file', 'bad-args.json'], exit: 2 }),
  ({ name: 'execute-args-file-not-object', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE', '--args-file', 'list-args.json'], exit: 2 }),
  ({ name: 'execute-args-file-missing', argv: ['execute', '@S', 'HACKERNEWS_GET_FRONTPAGE', '--args-file', 'nope.json'], exit: 2 }),
  // execute-meta
  ({ name: 'execute-meta-human', argv: ['execute-meta', '@S', 'COMPOSIO_MANAGE_CONNECTIONS', '--arg', 'toolkits=["github","hackernews"]'], exit: 0 }),
  ({ name: 'execute-meta-json', argv: ['execute-meta', '@S', 'COMPOSIO_GET_TOOL_SCHEMAS', '--arg', 'tool_slugs=["GITHUB_STAR_A_GIST"]', '--format', 'json'], exit: 0 }),
  ({ name: 'execute-meta-tool-failure', argv: ['execute-meta', '@S', 'COMPOSIO_GET_TOOL_SCHEMAS', '--arg', 'tool_slugs=GITHUB_STAR_A_GIST'], exit: 1 }),
  { name: 'execute-meta-not-enabled', argv: ['execute-meta', 'triage', 'COMPOSIO_REMOTE_WORKBENCH', '--user-id', 'bob', '--state', 'state.json'], exit: 1 },
  // link
  ({ name: 'link-human', argv: ['link', '@S', 'gmail'], exit: 0 }),
  ({ name: 'link-json', argv: ['link', '@S', 'gmail', '--callback-url', 'https://example.com/connected', '--format', 'json'], exit: 0 }),
  ({ name: 'link-no-auth-toolkit-400', argv: ['link', '@S', 'hackernews'], exit: 3 }),
  ({ name: 'link-forbidden-403', argv: ['link', '@S', 'gmail'], exit: 3, fault: { route: 'link', status: 403 } }),
  ({ name: 'link-bad-callback', argv: ['link', '@S', 'gmail', '--callback-url', 'not a url'], exit: 2 }),
  // proxy
  ({
    name: 'proxy-human',
    argv: ['proxy', '@S', '--toolkit', 'github', '--method', 'get', '--endpoint', '/user/repos', '--param', 'query:per_page=5', '--param', 'header:Accept=application/vnd.github+json'],
    exit: 0,
  }),
  ({ name: 'proxy-json-body', argv: ['proxy', '@S', '--toolkit', 'github', '--method', 'POST', '--endpoint', '/user/repos', '--body', 'body.json', '--format', 'json'], exit: 0 }),
  ({ name: 'proxy-not-connected-400', argv: ['proxy', '@S', '--toolkit', 'gmail', '--method', 'GET', '--endpoint', '/gmail/v1/users/me/profile'], exit: 3 }),
  ({ name: 'proxy-bad-method', argv: ['proxy', '@S', '--toolkit', 'github', '--method', 'FETCH', '--endpoint', '/user'], exit: 2 }),
  ({ name: 'proxy-bad-param', argv: ['proxy', '@S', '--toolkit', 'github', '--method', 'GET', '--endpoint', '/user', '--param', 'per_page=5'], exit: 2 }),
  ({ name: 'proxy-missing-toolkit', argv: ['proxy', '@S', '--method', 'GET', '--endpoint', '/user'], exit: 2 }),
  // files
  ({ name: 'files-ls-empty', argv: ['files', 'ls', '@S'], exit: 0 }),
  ({ name: 'files-put-human', argv: ['files', 'put', '@S', 'notes.txt', 'docs/notes.txt', '--content-type', 'text/plain'], exit: 0 }),
  ({ name: 'files-put-json', argv: ['files', 'put', '@S', 'args.json', 'data/args.json', '--format', 'json'], exit: 0 }),
  ({ name: 'files-put-missing-local', argv: ['files', 'put', '@S', 'nope.txt', 'data/nope.txt'], exit: 2 }),
  ({ name: 'files-ls-human', argv: ['files', 'ls', '@S'], exit: 0 }),
  ({ name: 'files-ls-prefix-json', argv: ['files', 'ls', '@S', 'docs/', '--format', 'json'], exit: 0 }),
  ({ name: 'files-ls-limit', argv: ['files', 'ls', '@S', '--limit', '1'], exit: 0 }),
  ({ name: 'files-get-human', argv: ['files', 'get', '@S', 'docs/notes.txt', 'copy.txt'], exit: 0 }),
  ({ name: 'files-get-exists-refused', argv: ['files', 'get', '@S', 'docs/notes.txt', 'copy.txt'], exit: 2 }),
  ({ name: 'files-get-exists-force', argv: ['files', 'get', '@S', 'docs/notes.txt', 'copy.txt', '--force'], exit: 0 }),
  ({ name: 'files-get-into-folder', argv: ['files', 'get', '@S', 'docs/notes.txt', 'downloads'], exit: 0 }),
  ({ name: 'files-get-json', argv: ['files', 'get', '@S', 'data/args.json', 'args-copy.json', '--format', 'json'], exit: 0 }),
  ({ name: 'files-get-missing-404', argv: ['files', 'get', '@S', 'docs/missing.txt', 'missing.txt'], exit: 3 }),
  ({ name: 'files-upload-url-human', argv: ['files', 'upload-url', '@S', 'reports/q3.csv', '--content-type', 'text/csv'], exit: 0 }),
  ({ name: 'files-upload-url-json', argv: ['files', 'upload-url', '@S', 'reports/q3.csv', '--format', 'json'], exit: 0 }),
  ({ name: 'files-download-url-human', argv: ['files', 'download-url', '@S', 'docs/notes.txt'], exit: 0 }),
  ({ name: 'files-download-url-json', argv: ['files', 'download-url', '@S', 'docs/notes.txt', '--format', 'json'], exit: 0 }),
  ({ name: 'files-upload-url-traversal-400', argv: ['files', 'upload-url', '@S', '../etc/passwd'], exit: 3 }),
  ({ name: 'files-unknown-mount-404', argv: ['files', 'ls', '@S', '--mount', 'photos'], exit: 3 }),
  ({ name: 'files-rm-human', argv: ['files', 'rm', '@S', 'docs/notes.txt'], exit: 0 }),
  ({ name: 'files-rm-json', argv: ['files', 'rm', '@S', 'data/args.json', '--format', 'json'], exit: 0 }),
  ({ name: 'files-ls-after-rm', argv: ['files', 'ls', '@S', '--all'], exit: 0 }),
];

describe('operate commands against the emulator (golden)', () => {
  test.each(cases)('$name', async (c) => {
    const r = await run(c);
    expect(r.stdout + r.stderr, 'the API key never appears').not.toContain(KEY);
    expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
    await expect(golden(c, r)).toMatchFileSnapshot(`../golden-operate/${c.name}.txt`);
    expect(r.exitCode, `${c.name}: ${r.stderr}`).toBe(c.exit);
    if (c.argv.includes('json') && c.exit === 0) expect(() => JSON.parse(r.stdout), 'stdout is one JSON document').not.toThrow();
    if (c.name === 'files-get-human') expect(await readFile(join(dir, 'copy.txt'), 'utf8')).toBe('meeting notes\nline two\n');
    if (c.name === 'files-get-into-folder') expect(await readFile(join(dir, 'downloads', 'notes.txt'), 'utf8')).toBe('meeting notes\nline two\n');
  });
});

describe('--format json prints the service response unchanged', () => {
  const opts = () => ({ cwd: dir, env: { COMPOSIO_API_KEY: KEY } });
  test('get, tools and one page of toolkits equal what the client decodes', async () => {
    const get = await runCli(['get', support, '--format', 'json', '--base-url', emu.url], opts());
    expect(JSON.parse(get.stdout)).toEqual(await client.getSession(support));
    const tools = await runCli(['tools', support, '--format', 'json', '--base-url', emu.url], opts());
    expect(JSON.parse(tools.stdout)).toEqual(await client.listTools(support));
    const toolkits = await runCli(['toolkits', support, '--format', 'json', '--base-url', emu.url], opts());
    expect(JSON.parse(toolkits.stdout)).toEqual(await client.listToolkits(support));
  });

  test('--all follows every page; --limit stops after N items and keeps the service cursor', async () => {
    // No allowlist: every catalogue toolkit, many pages of at most 50.
    const open = await client.createSession({ user_id: 'dora' });
    const first = await client.listToolkits(open.session_id);
    expect(first.total_items).toBeGreaterThan(120);
    const all = await runCli(['toolkits', open.session_id, '--all', '--format', 'json', '--base-url', emu.url], opts());
    expect(all.exitCode, all.stderr).toBe(0);
    const whole = JSON.parse(all.stdout);
    expect(whole.items).toHaveLength(first.total_items);
    expect(new Set(whole.items.map((t: { slug: string }) => t.slug)).size).toBe(first.total_items);
    expect(whole.next_cursor).toBeNull();
    const stats = await admin('GET', '/stats');
    expect(stats.routes.toolkits.handled).toBeGreaterThanOrEqual(Math.ceil(first.total_items / 50));

    const some = await runCli(['toolkits', open.session_id, '--limit', '120', '--format', 'json', '--base-url', emu.url], opts());
    const cut = JSON.parse(some.stdout);
    expect(cut.items.map((t: { slug: string }) => t.slug)).toEqual(whole.items.slice(0, 120).map((t: { slug: string }) => t.slug));
    expect(typeof cut.next_cursor).toBe('string');

    const human = await runCli(['toolkits', open.session_id, '--all', '--base-url', emu.url], opts());
    expect(human.stdout.trimEnd().split('\n').at(-1)).toBe(`${first.total_items} toolkits`);
    const one = await runCli(['toolkits', open.session_id, '--base-url', emu.url], opts());
    expect(one.stdout.trimEnd().split('\n').at(-1)).toBe(`${first.items.length} of ${first.total_items} toolkits (more with --all or --limit N)`);
  });
});

describe('colour and width follow the terminal', () => {
  test('a TTY gets a bold header unless NO_COLOR; a pipe never gets colour', async () => {
    const args = ['toolkits', support, '--base-url', emu.url];
    const tty = await runCli(args, { cwd: dir, tty: true, env: { COMPOSIO_API_KEY: KEY, NO_COLOR: undefined } });
    expect(tty.stdout.split('\n')[0]).toBe('\u001b[1mSLUG        NAME        ENABLED  AUTH    CONNECTION\u001b[22m');
    const noColor = await runCli(args, { cwd: dir, tty: true, env: { COMPOSIO_API_KEY: KEY, NO_COLOR: '1' } });
    expect(noColor.stdout).not.toContain('\u001b[');
    const pipe = await runCli(args, { cwd: dir, tty: false, env: { COMPOSIO_API_KEY: KEY, NO_COLOR: undefined } });
    expect(pipe.stdout).not.toContain('\u001b[');
  });

  test('without COLUMNS and not a TTY nothing is cut', async () => {
    const r = await runCli(['tools', support, '--base-url', emu.url], { cwd: dir, env: { COMPOSIO_API_KEY: KEY } });
    expect(r.stdout).toContain('Check connections and return an auth link for toolkits that are not connected.');
    expect(r.stdout).not.toContain('…');
  });
});
