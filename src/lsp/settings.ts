import type { UnsetVariables } from '../manifest/types.js';

/**
 * The server's settings, from the client's `initializationOptions` (or the `sessionctl` section
 * of `workspace/didChangeConfiguration`). Unknown keys and values of the wrong type are ignored:
 * an editor's settings are no reason to stop.
 */
export interface Settings {
  /**
   * A `${VAR}` the editor's environment does not set: `placeholder` (default; the variables of CI
   * are rarely set where one edits) or `error`, as `validate --unset-variables` takes it.
   */
  unsetVariables: UnsetVariables;
  /** Milliseconds of quiet after an edit before the buffer is checked again. Default 150. */
  debounceMs: number;
  /** Show what is deployed (from the project's state) as a code lens on each manifest. Off by default. */
  deployedLens: boolean;
}

export const defaultSettings: Settings = { unsetVariables: 'placeholder', debounceMs: 150, deployedLens: false };

/** Settings from whatever the client sent, each key checked; `{ sessionctl: {...} }` is unwrapped. */
export function readSettings(value: unknown, base: Settings = defaultSettings): Settings {
  const record = isRecord(value) && isRecord(value['sessionctl']) ? value['sessionctl'] : value;
  if (!isRecord(record)) return base;
  const out: Settings = { ...base };
  const unset = record['unsetVariables'];
  if (unset === 'error' || unset === 'placeholder') out.unsetVariables = unset;
  const debounce = record['debounceMs'];
  if (typeof debounce === 'number' && Number.isFinite(debounce) && debounce >= 0 && debounce <= 10_000) out.debounceMs = debounce;
  const lens = record['deployedLens'];
  if (typeof lens === 'boolean') out.deployedLens = lens;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
