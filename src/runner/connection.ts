import type { CreateSessionBody } from '../config/types.js';
import type { UpdateSessionRequest } from '../wire/request.js';
import type { ConfigHistory, ConfigHistoryQuery, Session } from '../wire/session.js';

/** The calls the lifecycle commands make, as the client (or any stand-in with the same contract) offers them. */
export interface SessionApi {
  createSession(body: CreateSessionBody): Promise<Session>;
  getSession(sessionId: string): Promise<Session>;
  updateSession(sessionId: string, body: UpdateSessionRequest): Promise<Session>;
  deleteSession(sessionId: string): Promise<unknown>;
  configHistory(sessionId: string, query?: ConfigHistoryQuery): Promise<ConfigHistory>;
  /** The names of the tools an MCP client sees at the session's `mcp.url`. */
  mcpToolNames(sessionId: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Opens a connection only when a run needs the network. */
export type Connect = () => Promise<SessionApi>;
