import type { SearchResult } from '../../wire/operations.js';
import { count, type RenderContext } from './context.js';
import { cell, renderFields, renderTable } from './table.js';

/** Tool slugs one per line (they are copied into the next command, so never cut). */
function list(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/**
 * The service's status for a toolkit, for a person at a terminal. Its advice for a toolkit that
 * is not connected ("use COMPOSIO_MANAGE_CONNECTIONS") is addressed to the agent; the person
 * connects it with `sessionctl link`.
 */
function statusFor(s: { toolkit: string; has_active_connection: boolean; status_message?: unknown }, session: string): unknown {
  const message = s.status_message;
  if (s.has_active_connection || typeof message !== 'string' || !message.includes('COMPOSIO_MANAGE_CONNECTIONS')) return message;
  return `Not connected: sessionctl link ${session} ${s.toolkit}`;
}

/**
 * `search`: per use case the tools to call first and the related ones, then whether each toolkit
 * involved is connected (and how to connect it: `sessionctl link <session> <toolkit>`, with the
 * session as the user named it). The tool schemas are left to `--format json`.
 */
export function renderSearch(result: SearchResult, ctx: RenderContext, session = 'SESSION'): string {
  const parts: string[] = [];
  for (const r of Array.isArray(result.results) ? result.results : []) {
    const difficulty = typeof r['difficulty'] === 'string' ? `  (${cell(r['difficulty'])})` : '';
    parts.push(`${ctx.style.bold(`${r.index}. ${cell(r.use_case)}`)}${difficulty}\n`);
    const fields: Array<[string, unknown]> = [
      ['   primary', list(r.primary_tool_slugs)],
      ['   related', list(r.related_tool_slugs)],
      ['   toolkits', list(r.toolkits).join(', ') || '(none)'],
    ];
    if (typeof r['execution_guidance'] === 'string') fields.push(['   guidance', r['execution_guidance']]);
    if (typeof r['error'] === 'string') fields.push(['   error', r['error']]);
    parts.push(renderFields(fields, ctx));
  }
  const statuses = Array.isArray(result.toolkit_connection_statuses) ? result.toolkit_connection_statuses : [];
  if (statuses.length > 0) {
    parts.push(
      '\n' +
        renderTable(
          [{ header: 'TOOLKIT' }, { header: 'CONNECTED' }, { header: 'STATUS', shrink: true }],
          statuses.map((s) => [s.toolkit, s.has_active_connection ? 'yes' : 'no', statusFor(s, session)]),
          ctx,
        ),
    );
  }
  const schemas = result.tool_schemas !== null && typeof result.tool_schemas === 'object' ? Object.keys(result.tool_schemas).length : 0;
  const results = Array.isArray(result.results) ? result.results.length : 0;
  parts.push(`\n${count(results, 'result')}, ${count(schemas, 'tool schema')} (see them with --format json)\n`);
  return parts.join('');
}
