import type { ExecuteResult } from '../../wire/operations.js';
import { prettyJson, type RenderContext } from './context.js';
import { cell } from './table.js';

/** `execute` / `execute-meta` that succeeded: one status line, then the tool's data as JSON. */
export function renderExecuteResult(slug: string, result: ExecuteResult, ctx: RenderContext): string {
  const log = typeof result.log_id === 'string' ? ` (log ${cell(result.log_id)})` : '';
  return `${ctx.style.green('ok')} ${cell(slug)}${log}\n${prettyJson(result.data ?? {})}`;
}

/** The lines for a tool-level failure (HTTP 200 with `error`), for stderr. */
export function describeToolFailure(slug: string, result: ExecuteResult): string {
  const log = typeof result.log_id === 'string' ? `\nlog id: ${cell(result.log_id)}` : '';
  return `error: tool ${cell(slug)} failed: ${cell(result.error)}${log}\n`;
}
