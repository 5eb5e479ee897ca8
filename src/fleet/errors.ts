import { SessionctlError } from '../diagnostics/errors.js';
import { shellWord } from '../util/shell-word.js';

/*
 * What `ensure` throws, one class per thing an application does something different about. Each
 * is a SessionctlError, so `instanceof` tells them apart from the service's `ApiError` (a create
 * the service refused) and the state's `StateError` (the database failed).
 */

/** The manifest was never published to this state's workspace (a name mistyped, or no apply yet). */
export class NotPublishedError extends SessionctlError {
  override readonly name: string = 'NotPublishedError';
  constructor(
    readonly manifest: string,
    /** The names that are published there. */
    readonly published: readonly string[],
    location: string,
  ) {
    super(
      `"${manifest}" is not published to ${location}${published.length > 0 ? ` (published: ${published.slice(0, 20).join(', ')}${published.length > 20 ? ', ...' : ''})` : ' (nothing is published there yet)'}; a per-user manifest is published by \`sessionctl apply\``,
    );
  }
}

/** A `${VAR}` the publication keeps for run time (a sensitive value) is not in the environment given. */
export class MissingVariableError extends SessionctlError {
  override readonly name: string = 'MissingVariableError';
  constructor(
    readonly manifest: string,
    readonly variable: string,
  ) {
    super(`"${manifest}" needs the variable ${variable} (a sensitive value, never stored in the state): pass it in openSessions' env; nothing was sent`);
  }
}

/**
 * A create of this user's session may have reached the service, but its answer was lost (a
 * timeout, a reset, a process killed while it waited): a session may exist that the state does not
 * record. It is never repeated blindly; a person resolves it (`sessionctl state rm NAME --user-id U`
 * once no session of that user is left).
 */
export class OutcomeUnknownError extends SessionctlError {
  override readonly name: string = 'OutcomeUnknownError';
  constructor(
    readonly manifest: string,
    readonly userId: string,
    /** ISO 8601: when the create was sent. */
    readonly since: string,
    readonly reason: string,
    /** A session that was created but could not be recorded, when that is what happened. */
    readonly sessionId?: string,
    options?: { cause?: unknown },
  ) {
    super(
      `the create of "${manifest}" for user ${JSON.stringify(userId)} sent at ${since} has an unknown outcome (${reason}); a session may exist that the state does not record, so it is not created again. ` +
        (sessionId !== undefined
          ? `It is ${sessionId}: delete it at the service, then \`sessionctl state rm ${manifest} --user-id ${shellWord(userId)}\` lets the next ensure create one that is recorded.`
          : `Look for a session of that user created since then (delete it if there is one); then \`sessionctl state rm ${manifest} --user-id ${shellWord(userId)}\` lets the next ensure create it.`),
      options,
    );
  }
}

/** Another caller's create of the same user's session did not end within the wait. Safe to retry. */
export class EnsureTimeoutError extends SessionctlError {
  override readonly name: string = 'EnsureTimeoutError';
  constructor(
    readonly manifest: string,
    readonly userId: string,
    readonly waitedMs: number,
  ) {
    super(`another caller is creating the session of "${manifest}" for user ${JSON.stringify(userId)}, and it did not end within ${waitedMs} ms; try again`);
  }
}

/** A user id the service would refuse (empty, too long, not a string) or the placeholder itself. */
export class InvalidUserIdError extends SessionctlError {
  override readonly name: string = 'InvalidUserIdError';
}
