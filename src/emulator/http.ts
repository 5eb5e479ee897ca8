/** Small HTTP helpers shared by the server and its routes: JSON answers, bounded body reads, typed queries. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonSchema } from './contract/types.js';
import { jsonShapeProblem } from '../util/json-shape.js';
import { httpError } from './errors.js';

/** Writes a JSON answer. No CORS headers, ever. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/** The client went away before its body arrived: nobody to answer. */
export class ClientGone extends Error {}

/** Reads a body up to `limit` bytes; past that, a 413 `ServiceError` (the caller closes the socket). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(httpError(413, `Request body too large: at most ${limit} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.pause();
        reject(httpError(413, `Request body too large: at most ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks));
    });
    req.on('error', () => {
      if (done) return;
      done = true;
      reject(new ClientGone('client went away'));
    });
    req.on('close', () => {
      if (done) return;
      done = true;
      reject(new ClientGone('client went away'));
    });
  });
}

/**
 * A JSON request body (empty is `{}`), read with the size limit and refused (400) when it is not
 * JSON or nests deeper or wider than any request of the API needs, before anything acts on it.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = (await readBody(req, limit)).toString('utf8');
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw httpError(400, 'Invalid JSON in request body', ['Error in payload: Invalid JSON']);
  }
  const problem = jsonShapeProblem(value);
  if (problem !== undefined) throw httpError(400, 'Request body refused', [`Error in payload: ${problem}`]);
  return value;
}

/** Query string -> typed values per the contract's parameter schemas (arrays are comma-joined). */
export function coerceQuery(params: URLSearchParams, schema: JsonSchema | undefined): Record<string, unknown> {
  const props = (schema?.['properties'] ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const [name, raw] of params) {
    const t = props[name]?.['type'];
    const types = Array.isArray(t) ? t : [t];
    if (types.includes('array')) out[name] = raw === '' ? [] : raw.split(',');
    else if (types.includes('integer') || types.includes('number')) out[name] = raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else if (types.includes('boolean')) out[name] = raw === 'true' ? true : raw === 'false' ? false : raw;
    else out[name] = raw;
  }
  return out;
}
