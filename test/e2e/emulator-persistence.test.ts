import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
