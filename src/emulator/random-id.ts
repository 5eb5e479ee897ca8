/**
 * Random ids (`trs_…`, `ca_…`, `req_…`) from a pooled CSPRNG buffer: one `randomFillSync` per 4 KiB
 * instead of one per id, which was a visible share of a create's cost under load.
 */
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(4096);
let offset = pool.length;

export function randomToken(bytes: number, encoding: 'base64url' | 'hex' = 'base64url'): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = pool.toString(encoding, offset, offset + bytes);
  offset += bytes;
  return out;
}

/** `prefix` + a random token of `bytes` bytes (12 base64url characters for 9 bytes). */
export function newId(prefix: string, bytes = 9): string {
  return `${prefix}${randomToken(bytes)}`;
}
