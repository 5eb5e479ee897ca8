import type { ProxyExecuteResult } from '../../wire/operations.js';
import { humanBytes, prettyJson, type RenderContext } from './context.js';
import { renderFields } from './table.js';

/** `proxy`: the upstream status, its headers, then its body as JSON (or where binary data went). */
export function renderProxy(result: ProxyExecuteResult, ctx: RenderContext): string {
  const status = typeof result.status === 'number' ? result.status : NaN;
  const paint = status >= 200 && status < 300 ? ctx.style.green : ctx.style.red;
  let out = `${paint(`upstream HTTP ${String(result.status)}`)}\n`;
  const headers = result.headers !== null && typeof result.headers === 'object' ? Object.entries(result.headers) : [];
  if (headers.length > 0) out += renderFields(headers.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [`${k}:`, v]), ctx);
  const binary = result.binary_data;
  if (binary !== undefined && binary !== null) {
    out += `\n${renderFields(
      [
        ['binary data', binary.url],
        ['content type', binary.content_type],
        ['size', humanBytes(binary.size)],
        ...(binary.expires_at !== undefined ? ([['expires', binary.expires_at]] as Array<[string, unknown]>) : []),
      ],
      ctx,
    )}`;
  }
  if (result.data !== undefined) out += `\n${prettyJson(result.data)}`;
  return out;
}
