import { test } from 'vitest';
import { createServer } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
test('probe', async () => {
  const EVIL = 'trs_x\u001b[2J\r\n::error::forged|cell';
  const url = 'https://h.example/mcp\u001b]8;;http://evil\u0007\n::warning::forged2';
  const server = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ session_id: EVIL, mcp: { url }, tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'], config: { user_id: 'u1', toolkits: { enabled: ['gmail'] } }, config_version: 1 })); }); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as any).port}`;
  const dir = tempDir('probe');
  await writeFile(join(dir, 'm.yaml'), 'name: probe\nuser_id: u1\ntoolkits: [gmail]\n"bad\\u001b[31mkey\\n::error::forged3": 1\n');
  await writeFile(join(dir, 'ok.yaml'), 'name: probe\nuser_id: u1\ntoolkits: [gmail]\n');
  const env = { COMPOSIO_API_KEY: 'ak_probe_000000000000', COMPOSIO_BASE_URL: base, GITHUB_OUTPUT: join(dir, 'go.txt') };
  for (const argv of [['validate', 'm.yaml', '--format', 'github'], ['validate', 'm.yaml', '--format', 'markdown'], ['apply', 'ok.yaml', '--github-output'], ['apply', 'ok.yaml', '--format', 'markdown'], ['diff', 'ok.yaml'], ['plan', 'ok.yaml', '--refresh'], ['get', 'probe'], ['get', 'probe', '--format', 'json']]) {
    const r = await runCli(argv, { cwd: dir, env });
    console.log(argv.join(' '), r.exitCode, JSON.stringify(r.stdout), JSON.stringify(r.stderr));
  }
  server.close();
});
