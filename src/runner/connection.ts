import type { CreateSessionBody } from '../config/types.js';
import type { Session } from '../wire/session.js';

/** The calls plan, apply and diff make, as the client (or any stand-in with the same contract) offers them. */
export interface SessionApi {
  createSession(body: CreateSessionBody): Promise<Session>;
  getSession(sessionId: string): Promise<Session>;
  close(): Promise<void>;
}

/** Opens a connection only when a run needs the network. */
export type Connect = () => Promise<SessionApi>;
