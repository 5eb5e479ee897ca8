/**
 * Mounts: list, presigned upload and download URLs, delete (api facts §2.10–2.13). The only mount is
 * `files` (the SDK's default id, sandbox prefix `/mnt/files`); others are 404. Presigned URLs point at
 * the emulator itself (`/_emulator/files/{token}`): the token carries session, mount, path, operation
 * and expiry, signed with HMAC-SHA256 under a per-process secret, so it needs no API key (like a
 * storage origin) and cannot be altered. Paths are relative, `/`-separated, with no `.`/`..` or empty
 * segments, no backslash or NUL: traversal is refused with 400. Uploads are limited while streaming.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { ApiHandler, ApiRequest, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { envelope, httpError } from '../errors.js';
import { sendJson } from '../http.js';
import { fileAt, ownFiles, putFile, removeFile } from '../mount-files.js';
import type { SessionRecord } from '../store.js';

const MOUNTS = new Set(['files']);

function mountOf(req: ApiRequest, state: EmulatorState): { session: SessionRecord; mount: string; prefix: string } {
  const session = requireSession(req, state);
  const mount = req.params.mount_id ?? '';
  if (!MOUNTS.has(mount)) throw httpError(404, `Mount '${mount}' not found`);
  return { session, mount, prefix: `/mnt/${mount}` };
}

/** Why a mount-relative path is refused, or undefined when it is fine. */
export function pathProblem(path: string): string | undefined {
  if (path.length > 1024) return 'path longer than 1024 characters';
  if (path.includes('\0') || path.includes('\\')) return 'path contains a NUL or backslash';
  if (path.startsWith('/')) return 'path must be relative';
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return "path has an empty, '.' or '..' segment";
  return undefined;
}

/**
 * The mount-relative path of a request. One leading `/` names the mount's root, as the SDK's own
 * examples write it (`/documents/a.txt`), and is dropped; everything else must be a clean relative path.
 */
function checkedPath(req: ApiRequest): string {
  const given = (req.body as { mount_relative_path: string }).mount_relative_path;
  const path = given.startsWith('/') && !given.startsWith('//') ? given.slice(1) : given;
  const problem = pathProblem(path);
  if (problem !== undefined) throw httpError(400, `Invalid mount_relative_path: ${problem}`, [`Error in payload.mount_relative_path: ${problem}`]);
  return path;
}

interface Presigned {
  s: string;
  m: string;
  p: string;
  op: 'get' | 'put';
  e: number;
  ct?: string;
}

function sign(payload: string, secret: Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

function presign(state: EmulatorState, claims: Omit<Presigned, 'e'>): { url: string; expires_at: string } {
  const e = Date.now() + state.settings.presignTtlMs;
  const payload = Buffer.from(JSON.stringify({ ...claims, e })).toString('base64url');
  return { url: `${state.baseUrl}/_emulator/files/${payload}.${sign(payload, state.secret)}`, expires_at: new Date(e).toISOString() };
}

function verify(token: string, state: EmulatorState): Presigned {
  const [payload, sig] = token.split('.');
  if (payload === undefined || sig === undefined) throw httpError(403, 'Invalid presigned URL');
  const expected = Buffer.from(sign(payload, state.secret));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw httpError(403, 'Invalid presigned URL signature');
  let claims: Presigned;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Presigned;
  } catch {
    throw httpError(403, 'Invalid presigned URL');
  }
  if (!(Date.now() <= claims.e)) throw httpError(403, 'Presigned URL expired');
  return claims;
}

export const listItems: ApiHandler = (req, state) => {
  const { session, mount, prefix } = mountOf(req, state);
  const q = req.query as { cursor?: string; limit?: number; mount_relative_prefix?: string };
  const limit = q.limit ?? 100;
  let offset = 0;
  if (q.cursor !== undefined) {
    offset = Number(Buffer.from(q.cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) throw httpError(400, 'Invalid cursor', ['Error in query.cursor: Invalid cursor']);
  }
  const all = Object.values(ownFiles(session, mount))
    .filter((f) => q.mount_relative_prefix === undefined || f.mount_relative_path.startsWith(q.mount_relative_prefix))
    .sort((a, b) => (a.mount_relative_path < b.mount_relative_path ? -1 : 1));
  const page = all.slice(offset, offset + limit);
  const body: Record<string, unknown> = {
    items: page.map((f) => ({ mount_relative_path: f.mount_relative_path, sandbox_mount_prefix: prefix, size: f.size, last_modified: f.last_modified })),
  };
  if (offset + limit < all.length) body['next_cursor'] = Buffer.from(String(offset + limit)).toString('base64url');
  return { status: 200, body };
};

export const createUploadUrl: ApiHandler = (req, state) => {
  const { session, mount, prefix } = mountOf(req, state);
  const path = checkedPath(req);
  const mimetype = (req.body as { mimetype?: string }).mimetype;
  const { url, expires_at } = presign(state, { s: session.id, m: mount, p: path, op: 'put', ...(mimetype === undefined ? {} : { ct: mimetype }) });
  return { status: 201, body: { upload_url: url, mount_relative_path: path, sandbox_mount_prefix: prefix, expires_at } };
};

export const createDownloadUrl: ApiHandler = (req, state) => {
  const { session, mount, prefix } = mountOf(req, state);
  const path = checkedPath(req);
  if (fileAt(session, mount, path) === undefined) throw httpError(404, `File '${path}' not found in mount '${mount}'`);
  const { url, expires_at } = presign(state, { s: session.id, m: mount, p: path, op: 'get' });
  return { status: 201, body: { download_url: url, mount_relative_path: path, sandbox_mount_prefix: prefix, expires_at } };
};

export const deleteItem: ApiHandler = async (req, state) => {
  const { session, mount, prefix } = mountOf(req, state);
  const path = checkedPath(req);
  const file = removeFile(session, mount, path);
  if (file !== undefined) {
    await state.store.blobs.drop(file.blob);
    state.store.changed();
  }
  // Idempotent by contract: deleting a missing file succeeds.
  return { status: 200, body: { mount_relative_path: path, sandbox_mount_prefix: prefix } };
};

/** `PUT|GET /_emulator/files/{token}`: the presigned upload and download, streamed. */
export async function serveFile(method: string, token: string, req: IncomingMessage, res: ServerResponse, state: EmulatorState, requestId: string): Promise<void> {
  const claims = verify(token, state);
  if ((method === 'PUT') !== (claims.op === 'put')) throw httpError(403, `This presigned URL is for ${claims.op.toUpperCase()}`);
  const session = state.store.sessions.get(claims.s);
  if (session === undefined) throw httpError(404, 'Session no longer exists');
  if (method === 'PUT') {
    const { id: blob, size } = await state.store.blobs.put(req, state.settings.maxFileBytes);
    const contentType = claims.ct ?? req.headers['content-type'];
    const old = putFile(session, claims.m, {
      mount_relative_path: claims.p,
      size,
      last_modified: new Date().toISOString(),
      blob,
      ...(contentType === undefined ? {} : { mimetype: contentType }),
    });
    if (old !== undefined) await state.store.blobs.drop(old.blob);
    state.store.changed();
    sendJson(res, 200, { mount_relative_path: claims.p, size }, { 'x-request-id': requestId });
    return;
  }
  const file = fileAt(session, claims.m, claims.p);
  const bytes = file === undefined ? undefined : await state.store.blobs.open(file.blob);
  if (file === undefined || bytes === undefined) {
    sendJson(res, 404, envelope(httpError(404, 'File not found'), requestId), { 'x-request-id': requestId });
    return;
  }
  res.writeHead(200, {
    'content-type': file.mimetype ?? 'application/octet-stream',
    'content-length': bytes.size,
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
  });
  await pipeline(bytes.stream, res).catch(() => res.destroy());
}
