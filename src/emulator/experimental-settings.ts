/**
 * The `experimental` keys of a create or PATCH body that change what the session does later
 * (api facts §3.6): `permissions` (execute honours them), `link_url_overwrite` (link answers with
 * it), `fast_mode` and `submit_feedback` (kept, no effect in the emulator). Custom tools and the
 * assistive prompt's config are not settings: they shape create's answer only.
 */
import type { ExperimentalSettings } from './store.js';

const KEYS = ['permissions', 'link_url_overwrite', 'fast_mode', 'submit_feedback'] as const;

/**
 * `current` with the keys `req` supplies replaced; a `null` request (PATCH `experimental: null`)
 * removes every setting (the contract does not let a PATCH null one key inside `experimental`).
 * Undefined when none is left.
 */
export function experimentalSettings(current: ExperimentalSettings | undefined, req: Record<string, unknown> | null | undefined): ExperimentalSettings | undefined {
  if (req === undefined) return current;
  const out: Record<string, unknown> = req === null ? {} : { ...current };
  if (req !== null) {
    for (const key of KEYS) {
      if (req[key] !== undefined) out[key] = structuredClone(req[key]);
    }
  }
  return Object.keys(out).length === 0 ? undefined : (out as ExperimentalSettings);
}
