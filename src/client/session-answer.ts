import type { Session } from '../wire/session.js';
import { mcpUrlProblem, sessionIdProblem, shown, toolListProblem } from '../wire/session-id.js';
import { ApiError } from './errors.js';

/**
 * A session as the service answered it, once its id, MCP URL and tool list have the service's form (and the
 * id is the one asked about, for a call on one session). Anything else is a `decode` error, as a
 * body that is not JSON is: for a create, its outcome is unknown (a session may exist), and the
 * hostile value is never recorded, written to `$GITHUB_OUTPUT` or printed raw.
 */
export function checkedSession(value: Session, call: { method: string; path: string; status: number; id?: string }): Session {
  const id = (value as { session_id?: unknown }).session_id;
  const mcp = (value as { mcp?: { url?: unknown } }).mcp;
  const problem =
    sessionIdProblem(id) ??
    (call.id !== undefined && id !== call.id ? `the answer is about session ${shown(id)}, not ${call.id}` : undefined) ??
    (typeof mcp === 'object' && mcp !== null ? mcpUrlProblem(mcp.url) : 'it has no MCP URL') ??
    toolListProblem((value as { tool_router_tools?: unknown }).tool_router_tools);
  if (problem === undefined) return value;
  return failed(`the service answered ${call.status} with a session sessionctl refuses: ${problem}`, call);
}

function failed(message: string, call: { method: string; path: string; status: number }): never {
  throw new ApiError(message, { kind: 'decode', method: call.method, path: call.path, status: call.status });
}
