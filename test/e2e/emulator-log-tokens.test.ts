/**
 * Issue 29, item 10: presigned file tokens and link tokens never reach the emulator's log (each is
 * a credential: the file, or the connection, for whoever reads the log). The unit table holds the
 * log's path rule; the end-to-end case runs a whole upload, download and link through a logging
 * emulator and looks for every token in every line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { loggedPath } from '../../src/emulator/dispatch.js';
import { call, SESSION } from '../conformance/emulator-http.js';

const KEY = 'log-tokens-key-0123456';
const lines: string[] = [];
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, log: (l) => lines.push(l) });
});
afterAll(() => emu.close());

describe('the log path', () => {
  it.each([
    ['/_emulator/files/eyJzIjoidHJzIn0.c2lnbmF0dXJl', '/_emulator/files/(token)'],
    ['/_emulator/files/abc.def?x=1', '/_emulator/files/(token)'],
    ['/_emulator/link/lt_AbCdEf123456', '/_emulator/link/(token)'],
    ['/_emulator/link/lt_AbCdEf123456/extra', '/_emulator/link/(token)/extra'],
    ['/api/v3/tool_router/session/trs_x?api_key=secret', '/api/v3/tool_router/session/trs_x'],
    ['/_emulator/sessions/trs_x', '/_emulator/sessions/trs_x'],
  ])('%s', (url, shown) => {
    expect(loggedPath(url)).toBe(shown);
  });
});

describe('a logging emulator', () => {
  it('an upload, a download and a link flow: no token in any line', async () => {
    const s = await call(emu.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u1' } });
    expect(s.status, s.text).toBe(201);
    const id = s.json.session_id as string;
    const up = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/upload_url`, { key: KEY, body: { mount_relative_path: 'a.txt' } });
    expect(up.status, up.text).toBe(201);
    const upPath = new URL(up.json.upload_url).pathname;
    expect((await call(emu.url, 'PUT', upPath, { raw: Buffer.from('hello') })).status).toBeLessThan(300);
    const down = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: 'a.txt' } });
    expect(down.status, down.text).toBeLessThan(300);
    const downPath = new URL(down.json.download_url).pathname;
    expect((await call(emu.url, 'GET', downPath)).status).toBe(200);
    const link = await call(emu.url, 'POST', `${SESSION}/${id}/link`, { key: KEY, body: { toolkit: 'github' } });
    expect(link.status, link.text).toBeLessThan(300);
    const linkPath = new URL(link.json.redirect_url).pathname;
    await call(emu.url, 'GET', linkPath);
    const tokens = [upPath, downPath, linkPath].map((p) => p.split('/').pop()!);
    expect(tokens.every((t) => t.length > 8)).toBe(true);
    expect(lines.some((l) => l.includes('/_emulator/files/(token)'))).toBe(true);
    expect(lines.some((l) => l.includes('/_emulator/link/(token)'))).toBe(true);
    for (const t of [...tokens, link.json.link_token as string]) for (const l of lines) expect(l).not.toContain(t);
  });
});
