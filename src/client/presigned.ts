import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import { checkKeyedUrl, type KeyedUrlOptions } from './base-url.js';
import { InputError } from '../diagnostics/errors.js';
import { ApiError, parseErrorBody } from './errors.js';
import { errorCode, readText } from './response.js';
import { isTimeoutCode } from './retry.js';

/**
 * Transfers to and from presigned mount URLs (facts §2.11, §2.12). These URLs point at a storage
 * origin, not the service, so no API key is ever sent there; files are streamed, never held in
 * memory; a download lands in a temp file beside the target and is renamed into place, so a
 * failed transfer never leaves a half-written file.
 */
export interface TransferOptions extends KeyedUrlOptions {
  /** Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
  /** Until response headers arrive, ms. Default 30 000. */
  headersTimeoutMs?: number;
  /** Between body chunks, ms. Default 30 000. */
  bodyTimeoutMs?: number;
  signal?: AbortSignal;
  onTrace?: (line: string) => void;
}

export interface UploadOptions extends TransferOptions {
  /** Sent as Content-Type; default `application/octet-stream`. */
  contentType?: string;
}

export interface DownloadOptions extends TransferOptions {
  /** Refuse bodies larger than this many bytes. Default: no limit. */
  maxBytes?: number;
}

/** PUTs a local file to a presigned upload URL, streaming it. Resolves with the bytes sent. */
export async function uploadFile(url: string, filePath: string, options: UploadOptions = {}): Promise<{ bytes: number; status: number }> {
  const target = checkKeyedUrl(url, 'the upload URL', options);
  let size: number;
  try {
    const st = await stat(filePath);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    size = st.size;
  } catch (err) {
    throw new InputError(`cannot read the file to upload (${errorCode(err)})`, filePath, { cause: err });
  }
  const where = target.pathname;
  const headers = { 'content-type': options.contentType ?? 'application/octet-stream', 'content-length': String(size) };
  options.onTrace?.(`> PUT ${target.origin}${where} (${size} bytes)`);
  const res = await send(target, where, 'PUT', options, createReadStream(filePath), headers);
  await res.body.dump();
  return { bytes: size, status: res.statusCode };
}

/**
 * GETs a presigned download URL into `destPath` (temp file + rename). Resolves with the bytes
 * written. `signal` stops the transfer at any point; the temp file is removed then, as after any
 * failure, so an interrupted download leaves nothing behind.
 */
export async function downloadToFile(url: string, destPath: string, options: DownloadOptions = {}): Promise<{ bytes: number }> {
  const target = checkKeyedUrl(url, 'the download URL', options);
  const where = target.pathname;
  options.onTrace?.(`> GET ${target.origin}${where}`);
  const res = await send(target, where, 'GET', options, null, {});
  const tmp = join(dirname(destPath), `.${basename(destPath)}.${randomBytes(6).toString('hex')}.tmp`);
  let bytes = 0;
  const limit = options.maxBytes;
  try {
    await pipeline(
      res.body,
      async function* count(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          bytes += chunk.length;
          if (limit !== undefined && bytes > limit) throw Object.assign(new Error(`download larger than ${limit} bytes`), { code: 'RESPONSE_TOO_LARGE' });
          yield chunk;
        }
      },
      createWriteStream(tmp, { flags: 'wx', mode: 0o644 }),
      ...(options.signal === undefined ? [] : [{ signal: options.signal }]),
    );
    await rename(tmp, destPath);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    if (err instanceof ApiError) throw err;
    const code = errorCode(err);
    if (code === 'RESPONSE_TOO_LARGE') throw new ApiError(`the download is larger than ${limit} bytes`, { kind: 'decode', method: 'GET', path: where, cause: err });
    if (LOCAL_FS_ERRORS.has(code)) {
      // The target cannot be written (permissions, full disk, missing folder): not the storage's fault.
      throw new InputError(`cannot write the download (${code})`, destPath, { cause: err });
    }
    throw new ApiError(`the download failed: ${code}`, { kind: isTimeoutCode(code) ? 'timeout' : 'network', method: 'GET', path: where, cause: err });
  }
  return { bytes };
}

const LOCAL_FS_ERRORS = new Set(['EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'ENOENT', 'ENOTDIR', 'EISDIR', 'EEXIST', 'EROFS', 'EMFILE', 'ENFILE', 'ENAMETOOLONG']);

async function send(
  target: URL,
  where: string,
  method: 'GET' | 'PUT',
  options: TransferOptions,
  body: NodeJS.ReadableStream | null,
  headers: Record<string, string>,
): Promise<Dispatcher.ResponseData> {
  let res: Dispatcher.ResponseData;
  try {
    res = await request(target, {
      method,
      headers,
      body: body as never,
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      bodyTimeout: options.bodyTimeoutMs ?? 30_000,
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (err) {
    const code = errorCode(err, options.signal);
    throw new ApiError(`the ${method === 'PUT' ? 'upload' : 'download'} failed: ${code}`, {
      kind: isTimeoutCode(code) ? 'timeout' : 'network',
      method,
      path: where,
      cause: err,
    });
  }
  options.onTrace?.(`< ${res.statusCode} ${method} ${target.origin}${where}`);
  const ok = method === 'GET' ? res.statusCode === 200 : res.statusCode >= 200 && res.statusCode < 300;
  if (ok) return res;
  if (res.statusCode >= 300 && res.statusCode < 400) {
    await res.body.dump();
    throw new ApiError(`the storage answered ${res.statusCode} with a redirect; redirects are not followed`, { kind: 'redirect', method, path: where, status: res.statusCode });
  }
  // An error body is read only up to 64 KiB: a hostile storage cannot make the CLI hold more.
  const text = await readText(res.body, 64 * 1024).catch(() => '');
  const parsed = parseErrorBody(text);
  const extra = parsed.slug === undefined ? {} : { slug: parsed.slug };
  throw new ApiError(parsed.message ?? `HTTP ${res.statusCode}`, { kind: 'http', method, path: where, status: res.statusCode, ...extra });
}
