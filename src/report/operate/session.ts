import type { Session } from '../../wire/session.js';
import type { RenderContext } from './context.js';
import { renderFields } from './table.js';

/**
 * Leaves of a config object as dotted paths: `toolkits.enabled  github, gmail`. Lists join with
 * commas; empty objects are skipped (they say nothing); an empty list shows as `(none)`.
 */
export function flatten(value: unknown, prefix: string, out: Array<[string, unknown]>): Array<[string, unknown]> {
  if (Array.isArray(value)) {
    const simple = value.every((v) => v === null || typeof v !== 'object');
    out.push([prefix, value.length === 0 ? '(none)' : simple ? value.map(String).join(', ') : JSON.stringify(value)]);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else {
    out.push([prefix, value === null ? 'null' : String(value)]);
  }
  return out;
}

/** `get`: who the session is for, how to reach it, what it exposes, and its effective config. */
export function renderSession(session: Session, ctx: RenderContext): string {
  const config = (session.config ?? {}) as Record<string, unknown>;
  const head: Array<[string, unknown]> = [
    ['session', session.session_id],
    ['user id', config['user_id']],
    ['mcp url', session.mcp?.url],
  ];
  if (session.config_version !== undefined) head.push(['config version', session.config_version]);
  const tools = Array.isArray(session.tool_router_tools) ? session.tool_router_tools : [];
  head.push(['meta tools', tools]);
  const { user_id: _user, ...rest } = config;
  const lines = flatten(rest, '', []);
  const extra = Object.fromEntries(Object.entries(session).filter(([k]) => !['session_id', 'mcp', 'tool_router_tools', 'config', 'config_version'].includes(k)));
  const more = flatten(extra, '', []);
  let out = renderFields(head, ctx);
  out += `\n${ctx.style.bold('config')}\n`;
  out += renderFields(lines.map(([k, v]) => [`  ${k}`, v]), ctx);
  if (more.length > 0) out += `\n${renderFields(more, ctx)}`;
  return out;
}
