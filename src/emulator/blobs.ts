/**
 * Mount file bytes. In memory, or under `--data-dir` in `blobs/<id>`: an upload streams to a temp
 * file beside its final name (created exclusively, mode 0600) and is renamed into place once
 * complete, so large files never sit in memory and a cut upload leaves nothing behind. Downloads
 * stream from disk too.
 */
import { createReadStream, createWriteStream, readdirSync, unlinkSync } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import { httpError } from './errors.js';
import { ClientGone } from './http.js';
import { newId } from './random-id.js';

const BLOB_ID = /^b[A-Za-z0-9_-]+$/;

export class BlobStore {
  private readonly memory = new Map<string, Buffer>();

  /** `dir`: the folder for blob files; undefined keeps bytes in memory. */
  constructor(private readonly dir?: string) {}

  /** Stores a request body of at most `limit` bytes; past that, a 413 (the caller closes the socket). */
  async put(req: IncomingMessage, limit: number): Promise<{ id: string; size: number }> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const id = newId('b', 12);
    let size = 0;
    const counted = async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        size += chunk.length;
        if (size > limit) throw tooLarge(limit);
        yield chunk;
      }
    };
    if (this.dir === undefined) {
      const chunks: Buffer[] = [];
      await pipeline(req, counted, async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) chunks.push(chunk);
      }).catch(rethrow);
      this.memory.set(id, Buffer.concat(chunks));
      return { id, size };
    }
    const target = join(this.dir, id);
    const tmp = `${target}.part`;
    try {
      await pipeline(req, counted, createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
      await rename(tmp, target);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      rethrow(err);
    }
    return { id, size };
  }

  /** The bytes of a blob as a stream, with their size; undefined when it is gone. */
  async open(id: string): Promise<{ size: number; stream: Readable } | undefined> {
    if (this.dir === undefined) {
      const bytes = this.memory.get(id);
      return bytes === undefined ? undefined : { size: bytes.length, stream: Readable.from([bytes]) };
    }
    if (!BLOB_ID.test(id)) return undefined;
    const path = join(this.dir, id);
    try {
      const { size } = await stat(path);
      return { size, stream: createReadStream(path) };
    } catch {
      return undefined;
    }
  }

  async drop(id: string): Promise<void> {
    if (this.dir === undefined) this.memory.delete(id);
    else if (BLOB_ID.test(id)) await unlink(join(this.dir, id)).catch(() => undefined);
  }

  clear(): void {
    this.memory.clear();
    if (this.dir !== undefined) for (const f of readdirSync(this.dir)) unlinkSync(join(this.dir, f));
  }
}

function tooLarge(limit: number): Error {
  return httpError(413, `File too large: at most ${limit} bytes (emulator --max-file-size)`);
}

/** A 413 stays a 413; anything else on the request stream means the client went away. */
function rethrow(err: unknown): never {
  if (err instanceof Error && 'status' in err) throw err;
  throw new ClientGone('client went away');
}
