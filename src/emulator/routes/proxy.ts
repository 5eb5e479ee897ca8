/**
 * POST /session/{id}/proxy_execute (api facts §2.6): instead of calling the toolkit's API, the
 * emulator answers with an echo of the upstream request it would have sent (method, URL resolved
 * against the toolkit's base, headers and query from `parameters`, body), as a 200 with the upstream
 * `status` 200. Refusals: unknown toolkit (400), a toolkit the session does not allow (400), an auth
 * toolkit with no active connection (400 `ToolRouterV2_NoActiveConnection`).
 */
import type { ApiHandler } from '../context.js';
import { requireSession } from '../context.js';
import { isConnected } from '../connections.js';
import { toolRouterErrors } from '../errors.js';
import { toolkitAllowed } from '../policy.js';

interface ProxyBody {
  toolkit_slug: string;
  endpoint: string;
  method: string;
  body?: unknown;
  binary_body?: { url?: string; base64?: string; content_type?: string };
  parameters?: Array<{ name: string; value: string; type: 'header' | 'query' }>;
}

export const proxyExecute: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const body = req.body as ProxyBody;
  const toolkit = state.catalog.toolkit(body.toolkit_slug);
  if (toolkit === undefined) {
    throw toolRouterErrors.invalidToolkitSlugs([body.toolkit_slug], [`Error in payload.toolkit_slug: Unknown toolkit '${body.toolkit_slug}'`]);
  }
  if (!toolkitAllowed(session.config, toolkit.slug)) throw toolRouterErrors.badRequest(`Toolkit '${toolkit.slug}' is not enabled in this session`);
  if (!isConnected(session, toolkit, state)) throw toolRouterErrors.noActiveConnection(toolkit.slug);
  let url: URL;
  try {
    url = new URL(body.endpoint, `https://${toolkit.slug.replace(/[^a-z0-9-]/gi, '-')}.api.emulator.invalid/`);
  } catch {
    throw toolRouterErrors.badRequest(`Invalid endpoint '${body.endpoint}'`, ['Error in payload.endpoint: Invalid URL']);
  }
  const headers: Record<string, string> = {};
  for (const p of body.parameters ?? []) {
    if (p.type === 'query') url.searchParams.append(p.name, p.value);
    else headers[p.name.toLowerCase()] = p.value;
  }
  const echo: Record<string, unknown> = {
    method: body.method,
    url: url.toString(),
    headers,
    query: Object.fromEntries(url.searchParams),
    body: body.body ?? null,
  };
  if (body.binary_body !== undefined) {
    echo['binary_body'] = {
      content_type: body.binary_body.content_type ?? 'application/octet-stream',
      ...(body.binary_body.url === undefined ? {} : { url: body.binary_body.url }),
      ...(body.binary_body.base64 === undefined ? {} : { size: Buffer.from(body.binary_body.base64, 'base64').length }),
    };
  }
  return {
    status: 200,
    body: {
      status: 200,
      data: body.method === 'HEAD' ? null : { echo },
      headers: { 'content-type': 'application/json', 'x-emulator-proxy': 'echo' },
    },
  };
};
