import { expectedConfig } from '../config/expected.js';
import type { ManifestData } from '../config/types.js';
import type { Session } from '../wire/session.js';
import { verifySession, type Verification, type VerifyOptions } from '../config/verify.js';
import type { ManifestDocument } from '../manifest/types.js';

/** A live session checked against its manifest: the same verdict as `sessionctl diff`. */
export type SessionCheck = Verification;

/**
 * Checks a live session (a create or GET answer) against the manifest document it was created
 * from: declared against effective, key by key, lists as sets, documented defaults not counted.
 * Values the document holds from sensitive variables are masked in what it returns (`(sensitive:
 * HOOK_TOKEN)`), unless `revealSensitive` is set.
 */
export function checkSession(document: ManifestDocument, session: Session, options: VerifyOptions = {}): SessionCheck {
  return verifySession(document, expectedConfig(document.data as ManifestData), session, options);
}
