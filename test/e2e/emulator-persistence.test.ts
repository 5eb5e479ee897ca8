import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call, createSession, SESSION } from '../conformance/emulator-http.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'persist-key-123456';

describe('--data-dir', () => {
  it('keeps sessions, connections and files across restarts, written atomically with mode 0600', async () => {
    const dir = tempDir('emu-data');
    const first = await startEmulator({ port: 0, dataDir: dir });
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => createSession(first.url, KEY, { user_id: `u${i}`, toolkits: { enable: ['gmail'] } })));
    const id = ids[0] as string;
    const link = await call(first.url, 'POST', `${SESSION}/${id}/link`, { key: KEY, body: { toolkit: 'gmail' } });
    await call(first.url, 'GET', new URL(link.json.redirect_url).pathname);
    const up = await call(first.url, 'POST', `${SESSION}/${id}/mounts/files/upload_url`, { key: KEY, body: { mount_relative_path: 'keep.txt' } });
    await call(first.url, 'PUT', new URL(up.json.upload_url).pathname, { raw: 'kept' });
    const before = await call(first.url, 'GET', `${SESSION}/${id}`, { key: KEY });
    await first.close();

    const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    expect(state.version).toBe(1);
    expect(state.sessions).toHaveLength(20);
    expect(statSync(join(dir, 'state.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).not.toContain(KEY);

    const second = await startEmulator({ port: 0, dataDir: dir });
    try {
      const after = await call(second.url, 'GET', `${SESSION}/${id}`, { key: KEY });
      expect(after.status).toBe(200);
      expect(after.json.config).toEqual(before.json.config);
      expect((await call(second.url, 'GET', `${SESSION}/${id}`, { key: 'other-key-1234' })).status).toBe(404);
      const connected = await call(second.url, 'GET', `${SESSION}/${id}/toolkits?is_connected=true`, { key: KEY });
      expect(connected.json.items.map((t: any) => t.slug)).toEqual(['gmail']);
      const dl = await call(second.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: 'keep.txt' } });
      expect((await call(second.url, 'GET', new URL(dl.json.download_url).pathname)).text).toBe('kept');
      // Reset clears the disk too.
      await call(second.url, 'POST', '/_emulator/reset');
    } finally {
      await second.close();
    }
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).sessions).toEqual([]);
    expect(readdirSync(join(dir, 'blobs'))).toEqual([]);
  });

  it('a corrupt state file is a clear error at start, not a silent reset', async () => {
    const dir = tempDir('emu-bad');
    writeFileSync(join(dir, 'state.json'), '{"version": 1, "sessions": [');
    await expect(startEmulator({ port: 0, dataDir: dir })).rejects.toThrow(/state\.json is not valid JSON/);
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).toBe('{"version": 1, "sessions": [');
  });
});

describe('--data-dir mount files', () => {
  it('stream to disk: a file past the limit is 413 and leaves nothing; one within it is kept byte for byte', async () => {
    const dir = tempDir('emu-blobs');
    try {
      const emu = await startEmulator({ port: 0, dataDir: dir, maxFileBytes: 3 * 1024 * 1024 });
      const id = await createSession(emu.url, KEY);
      const urlFor = async (file: string): Promise<string> =>
        (await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/upload_url`, { key: KEY, body: { mount_relative_path: file } })).json.upload_url;
      // Sent in chunks without a content-length, so the limit is found while streaming.
      const chunks = async function* (n: number): AsyncGenerator<Buffer> {
        for (let i = 0; i < n; i++) yield Buffer.alloc(256 * 1024, i);
      };
      // The emulator answers 413 and closes the connection while the body is still arriving: the
      // client sees the 413 or a reset, depending on timing; either way nothing is stored.
      const oneShot = new Agent({ pipelining: 0 });
      const big = await request(await urlFor('big.bin'), { method: 'PUT', body: Readable.from(chunks(16)), dispatcher: oneShot }).then(
        async (r) => {
          await r.body.dump().catch(() => undefined);
          return r.statusCode;
        },
        (e: unknown) => (e as { code?: string }).code,
      );
      await oneShot.close();
      expect([413, 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']).toContain(big);
      const ok = await request(await urlFor('ok.bin'), { method: 'PUT', body: Readable.from(chunks(8)) });
      expect(ok.statusCode).toBe(200);
      await ok.body.dump();
      await emu.close();
      expect(readdirSync(join(dir, 'blobs')).filter((f) => !/^b[A-Za-z0-9_-]+$/.test(f))).toEqual([]);
      expect(readdirSync(join(dir, 'blobs'))).toHaveLength(1);

      const again = await startEmulator({ port: 0, dataDir: dir });
      const dl = await call(again.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: 'ok.bin' } });
      const got = await request(dl.json.download_url);
      const bytes = Buffer.from(await got.body.arrayBuffer());
      expect(bytes.equals(Buffer.concat(Array.from({ length: 8 }, (_, i) => Buffer.alloc(256 * 1024, i))))).toBe(true);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
