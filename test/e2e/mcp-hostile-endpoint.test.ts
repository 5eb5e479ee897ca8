/**
 * `sessionctl mcp` against a hostile MCP endpoint the test starts (issue 29, item 5): pages that
 * never end, a 300 MB tools list, more tools than any session has, an answer that drips one byte
 * at a time, an answer that never comes. Each ends with a clear error and a non-zero exit, within
 * `--timeout`; the huge answer is not read past the cap (what the server managed to send is
 * counted: the client stops reading, so the server's writes stall well short of 300 MB).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MCP_BYTES, MAX_MCP_PAGES, MAX_MCP_TOOLS } from '../../src/client/mcp.js';
import { runCli } from '../helpers/run-cli.js';
import { STACK_LINE } from './bad-input-cases.js';
import { sessionAnswer } from './hostile-service.js';

type Mode = 'endless-pages' | 'same-cursor' | 'huge-answer' | 'huge-sse' | 'many-tools' | 'drip' | 'silent';
const KEY = 'ak_hostile_mcp_key_00001';
let mode: Mode = 'endless-pages';
let sent = 0;
let listCalls = 0;
let server: Server;
let url = '';
const sockets = new Set<Socket>();

const tool = (n: number): string => JSON.stringify({ name: `TOOL_${n}`, description: 'x'.repeat(200), inputSchema: { type: 'object' } });

/** Writes `total` bytes of a tools list as fast as the reader takes them; stops when it goes away. */
function stream(res: ServerResponse, head: string, total: number, tail: string): void {
  let n = 0;
  res.write(head);
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      const chunk = `${n++ === 0 ? '' : ','}${tool(n)}`;
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(tail);
  };
  pump();
}

function answerMcp(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  const msg = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string; cursor?: string } };
  if (msg.id === undefined) return void res.writeHead(202).end();
  const reply = (result: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  if (msg.method === 'initialize') return reply({ protocolVersion: msg.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } });
  if (msg.method !== 'tools/list') return reply({});
  listCalls++;
  const page = listCalls;
  switch (mode) {
    case 'endless-pages':
      return reply({ tools: [JSON.parse(tool(page))], nextCursor: `c${page}` });
    case 'same-cursor':
      return reply({ tools: [], nextCursor: 'again' });
    case 'many-tools':
      return reply({ tools: Array.from({ length: MAX_MCP_TOOLS + 1 }, (_, i) => ({ name: `T${i}`, inputSchema: { type: 'object' } })) });
    case 'huge-answer':
      res.writeHead(200, { 'content-type': 'application/json' });
      return stream(res, `{"jsonrpc":"2.0","id":${msg.id},"result":{"tools":[`, 300 * 1024 * 1024, ']}}');
    case 'huge-sse':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return stream(res, `event: message\ndata: {"jsonrpc":"2.0","id":${msg.id},"result":{"tools":[`, 300 * 1024 * 1024, ']}}\n\n');
    case 'drip': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
      return;
    }
    case 'silent':
      return;
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      if ((req.url ?? '').startsWith('/mcp')) return answerMcp(req, res, body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sessionAnswer('trs_hostileMcp01', `${url}/mcp`)));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

async function mcp(m: Mode, extra: string[] = []) {
  mode = m;
  sent = 0;
  listCalls = 0;
  const r = await runCli(['mcp', 'trs_hostileMcp01', ...extra], { env: { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: url } });
  expect(r.exitCode).not.toBe(0);
  expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
  expect(r.stdout + r.stderr).not.toContain(KEY);
  return r;
}

describe('sessionctl mcp against a hostile endpoint: a clear error, non-zero exit, bounded reads', () => {
  it('pagination that never ends stops after the page cap', async () => {
    const r = await mcp('endless-pages');
    expect(r.stderr).toContain(`the MCP endpoint listed more than ${MAX_MCP_PAGES} pages of tools (it keeps sending a next cursor); stopped`);
    expect(listCalls).toBe(MAX_MCP_PAGES);
  });

  it('the same cursor again and again: the same cap', async () => {
    const r = await mcp('same-cursor');
    expect(r.stderr).toContain(`more than ${MAX_MCP_PAGES} pages of tools`);
    expect(listCalls).toBe(MAX_MCP_PAGES);
  });

  it('more tools than the cap in one page', async () => {
    const r = await mcp('many-tools');
    expect(r.stderr).toContain(`the MCP endpoint listed more than ${MAX_MCP_TOOLS.toLocaleString('en')} tools; stopped`);
  });

  it.each(['huge-answer', 'huge-sse'] as const)('a 300 MB tools list (%s) is not read past the cap', async (m) => {
    const r = await mcp(m);
    expect(r.stderr).toContain(`the MCP endpoint sent more than ${MAX_MCP_BYTES / 1024 / 1024} MiB; stopped reading`);
    // What the server got out: the cap plus what the sockets buffer, far from 300 MB.
    expect(sent).toBeLessThan(MAX_MCP_BYTES + 32 * 1024 * 1024);
  });

  it.each(['drip', 'silent'] as const)('an answer that %s ends at --timeout', async (m) => {
    const r = await mcp(m, ['--timeout', '1500']);
    expect(r.stderr).toContain('no answer from the MCP endpoint in time');
  });
});
