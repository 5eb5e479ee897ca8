import type { CreateSessionBody, SessionView } from '../config/types.js';

/** The calls plan, apply and diff make, as the client (or any stand-in with the same contract) offers them. */
export interface SessionApi {
  createSession(body: CreateSessionBody): Promise<SessionView>;
  getSession(sessionId: string): Promise<SessionView>;
  close(): Promise<void>;
}

/** Opens a connection only when a run needs the network. */
export type Connect = () => Promise<SessionApi>;
