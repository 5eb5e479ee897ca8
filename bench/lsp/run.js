// The language server (`sessionctl lsp`, issue 27) as an editor drives it: the built server in a
// child process, over stdio, through vscode-jsonrpc's reader and writer (as test/e2e/lsp does).
//
// 1. Diagnostics after an edit to a 300-line manifest: from sending didChange to receiving the
//    publishDiagnostics of that version, one edit at a time (200, each waited for), in a folder of
//    100 manifests (the other 99 on disk, not open). Measured with the debounce set to 0 (the
//    server's work), and a shorter run with the default debounce, which an editor adds on purpose.
//    Target: p99 <= 50 ms.
// 2. Completion under tools.github (823 tools, the largest list the catalogue has): p50/p99 of
//    textDocument/completion. Target: p99 <= 20 ms.
// 3. Server memory (VmRSS, Linux) with 1,000 files open, after each one's diagnostics came.
//    Target: <= 150 MB.
// Peer: `validate --format json` of the same 300-line file as a cold process.
//
// Needs `npm run build`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import lsp from 'vscode-languageserver/node';
const { createProtocolConnection, InitializeRequest, InitializedNotification, PublishDiagnosticsNotification, ShutdownRequest, ExitNotification, StreamMessageReader, StreamMessageWriter } = lsp;
import { manifest } from '../validate/generate.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(repo, 'dist/sessionctl.js');
const tools = JSON.parse(readFileSync(join(repo, 'dist/catalog/data/tools.json'), 'utf8')).tools;
const slugsOf = (toolkit) => tools.filter((t) => t.toolkit === toolkit).map((t) => t.slug);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s.at(-1) };
};
const f = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

/** The 300-line manifest: github's and googledrive's tools as block lists, the rest as a real one has it. */
function bigManifest(name, typo) {
  const github = slugsOf('github').slice(0, 250);
  const drive = slugsOf('googledrive').slice(0, 35);
  const lines = [
    '# yaml-language-server: $schema=../schemas/session-manifest.schema.json',
    `name: ${name}`,
    'user_id: user-big',
    'toolkits:',
    `  enable: [github, googledrive, slack, ${typo ? 'gmial' : 'gmail'}]`,
    'tools:',
    '  github:',
    '    enable:',
    ...github.map((s) => `      - ${s}`),
    '  googledrive:',
    '    disable:',
    ...drive.map((s) => `      - ${s}`),
    'tags:',
    '  disable: [destructiveHint]',
    'manage_connections:',
    '  enable: true',
  ];
  return lines.join('\n') + '\n';
}

class Server {
  constructor(folder, settings) {
    this.child = spawn(process.execPath, [bin, 'lsp', '--stdio'], { cwd: folder, env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'inherit'] });
    this.conn = createProtocolConnection(new StreamMessageReader(this.child.stdout), new StreamMessageWriter(this.child.stdin));
    this.waiting = new Map();
    this.conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      const key = `${p.uri}#${p.version}`;
      const w = this.waiting.get(key);
      if (w !== undefined) {
        this.waiting.delete(key);
        w(p);
      }
    });
    this.conn.listen();
    this.ready = this.conn.sendRequest(InitializeRequest.type, { processId: null, rootUri: null, capabilities: {}, workspaceFolders: [{ uri: pathToFileURL(folder).href, name: 'bench' }], initializationOptions: settings }).then(() => this.conn.sendNotification(InitializedNotification.type, {}));
  }
  /** Resolves with the diagnostics of `uri` at `version` (registered before the message that causes them is sent). */
  published(uri, version) {
    return new Promise((resolve) => this.waiting.set(`${uri}#${version}`, resolve));
  }
  open(uri, text) {
    const done = this.published(uri, 1);
    void this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return done;
  }
  change(uri, version, text) {
    const done = this.published(uri, version);
    void this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return done;
  }
  async stop() {
    await this.conn.sendRequest(ShutdownRequest.type);
    await this.conn.sendNotification(ExitNotification.type);
    await new Promise((resolve) => (this.child.exitCode !== null ? resolve() : this.child.once('exit', resolve)));
    this.conn.dispose();
  }
}

/** `n` edits of the big manifest, each waited for: the latency of each, in ms. */
async function edits(server, uri, n, first) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const version = first + i;
    const text = bigManifest(`big-${version}`, i % 2 === 1);
    const t = performance.now();
    await server.change(uri, version, text);
    out.push(performance.now() - t);
  }
  return out;
}

const results = [];
const loadBefore = loadavg().map((x) => x.toFixed(1)).join(' / ');

// A folder of 100 manifests: the big one and 99 generated ones.
const folder = mkdtempSync(join(tmpdir(), 'bench-lsp-'));
let seed = 42;
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
for (let i = 0; i < 99; i++) writeFileSync(join(folder, `m${i}.yaml`), manifest(i, random));
const bigFile = join(folder, 'big.yaml');
writeFileSync(bigFile, bigManifest('big-1', false));
const bigUri = pathToFileURL(bigFile).href;

// 1 and 2: debounce 0.
{
  const server = new Server(folder, { debounceMs: 0 });
  await server.ready;
  await server.open(bigUri, readFileSync(bigFile, 'utf8'));
  await edits(server, bigUri, 20, 2); // warm-up
  const d = stats(await edits(server, bigUri, 200, 22));
  results.push(['diagnostics after an edit, 300-line manifest, 100 files in the folder, debounce 0: p50 / p99 (200 edits)', `${f(d.p50)} ms / ${f(d.p99)} ms`, 'p99 ≤ 50 ms', d.p99 <= 50]);

  // The cursor on a new list item under tools.github.enable.
  const lines = bigManifest('big-c', false).split('\n');
  const at = 8;
  lines.splice(at, 0, '      - GITHUB_');
  await server.change(bigUri, 300, lines.join('\n'));
  const completion = [];
  let count = 0;
  for (let i = 0; i < 220; i++) {
    const t = performance.now();
    const items = await server.conn.sendRequest('textDocument/completion', { textDocument: { uri: bigUri }, position: { line: at, character: 15 } });
    if (i >= 20) completion.push(performance.now() - t);
    count = items.length;
  }
  const c = stats(completion);
  results.push([`completion under tools.github (${count} items): p50 / p99 (200 requests)`, `${f(c.p50)} ms / ${f(c.p99)} ms`, 'p99 ≤ 20 ms', c.p99 <= 20]);
  await server.stop();
}

// 1 again with the default debounce, as an editor has it.
{
  const server = new Server(folder, {});
  await server.ready;
  await server.open(bigUri, readFileSync(bigFile, 'utf8'));
  await edits(server, bigUri, 5, 2);
  const d = stats(await edits(server, bigUri, 40, 7));
  results.push(['the same with the default debounce (150 ms of quiet first): p50 / p99 (40 edits)', `${f(d.p50)} ms / ${f(d.p99)} ms`, '', undefined]);
  await server.stop();
}

// Peer: validate of the same file, a cold process.
{
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    spawnSync(process.execPath, [bin, 'validate', 'big.yaml', '--format', 'json'], { cwd: folder, env: { PATH: process.env.PATH ?? '' } });
    times.push(performance.now() - t);
  }
  results.push(['peer: `validate --format json big.yaml`, a cold process: median of 10', `${f(stats(times).p50)} ms`, '', undefined]);
}

// 3: 1,000 files open.
{
  const many = mkdtempSync(join(tmpdir(), 'bench-lsp-1000-'));
  const texts = [];
  for (let i = 0; i < 1000; i++) {
    texts.push(manifest(i, random));
    writeFileSync(join(many, `m${i}.yaml`), texts[i]);
  }
  const server = new Server(many, { debounceMs: 0 });
  await server.ready;
  const rssIdle = rssOf(server.child.pid);
  const t = performance.now();
  await Promise.all(texts.map((text, i) => server.open(pathToFileURL(join(many, `m${i}.yaml`)).href, text)));
  const openAll = performance.now() - t;
  const rss = rssOf(server.child.pid);
  // An edit with all of them open (unsaved text in one file).
  const uri = pathToFileURL(join(many, 'm0.yaml')).href;
  const times = [];
  for (let v = 2; v < 22; v++) {
    const s = performance.now();
    await server.change(uri, v, texts[0].replace('name: bench-0', `name: bench-0-${v}`));
    times.push(performance.now() - s);
  }
  const e = stats(times);
  const rssAfter = rssOf(server.child.pid);
  results.push(['server memory (RSS) with 1,000 files open, after their diagnostics / after 20 edits', `${f(rss / 2 ** 20, 0)} MiB / ${f(rssAfter / 2 ** 20, 0)} MiB`, '≤ 150 MB', Math.max(rss, rssAfter) <= 150e6]);
  results.push(['RSS of the server started, nothing open', `${f(rssIdle / 2 ** 20, 0)} MiB`, '', undefined]);
  results.push(['opening 1,000 files until every one has its diagnostics', `${f(openAll, 0)} ms`, '', undefined]);
  results.push(['diagnostics after an edit with 1,000 files open, debounce 0: p50 / max (20 edits)', `${f(e.p50)} ms / ${f(e.max)} ms`, '', undefined]);
  await server.stop();
}

console.log(`\nbench/lsp, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${f(totalmem() / 2 ** 30, 1)} GiB; load average ${loadBefore} before, ${loadavg().map((x) => x.toFixed(1)).join(' / ')} after\n`);
console.log('| measure | result | target |\n|---|---|---|');
for (const [what, value, target, ok] of results) console.log(`| ${what} | **${value}** | ${target}${ok === undefined ? '' : ok ? ' ✅' : ' ❌'} |`);
