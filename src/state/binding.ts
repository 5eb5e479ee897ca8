import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { UsageError } from '../diagnostics/errors.js';
import { isLoopbackHost } from '../util/loopback.js';

/**
 * The service a state was applied against, recorded with it (terraform binds a backend to its
 * configuration; cloud providers have `allowed_account_ids`). Without it, a key of another
 * project or another base URL made every recorded session answer 404, and apply re-created all of
 * them there and re-pointed the shared state at them.
 */
export interface StateBinding {
  /** The base URL, as `normalizeBaseUrl` gives it; `emulator` for a state made with `--emulator`. */
  service: string;
  /**
   * A keyed digest of the API key, `hmac-sha256:SALT:DIGEST`: it tells two keys apart and reveals
   * neither (the salt is per state, so digests of one key in two states cannot be matched either).
   * Absent for the emulator (any key works there) and for a state bound by a run without a key.
   */
  project?: string;
  /** ISO 8601. */
  bound_at: string;
}

/** The service a run talks to, as far as a binding is concerned. */
export interface ServiceIdentity {
  /** The normalised base URL, or `emulator`. */
  service: string;
  /** The digest of the run's key under a salt; undefined when the run has no key. */
  keyDigest?: (salt: string) => string;
}

export const EMULATOR_SERVICE = 'emulator';

const PROJECT = /^hmac-sha256:([0-9a-f]{32}):([0-9a-f]{32})$/;

/** The identity of a run against `service` with `apiKey` (undefined: none). */
export function serviceIdentity(service: string, apiKey?: string): ServiceIdentity {
  if (service === EMULATOR_SERVICE || apiKey === undefined) return { service };
  return { service, keyDigest: (salt) => createHmac('sha256', salt).update(apiKey).digest('hex').slice(0, 32) };
}

/** The binding a first write records for a run. */
export function bindingFor(identity: ServiceIdentity, now: Date, salt = randomBytes(16).toString('hex')): StateBinding {
  return { service: identity.service, ...(identity.keyDigest !== undefined ? { project: `hmac-sha256:${salt}:${identity.keyDigest(salt)}` } : {}), bound_at: now.toISOString() };
}

/**
 * Whether a run should write its binding: none yet, or one written without a key that this run
 * has (never for the emulator, whose identity has no key). Asked once `checkBinding` passed.
 */
export function needsBinding(binding: StateBinding | undefined, identity: ServiceIdentity): boolean {
  return binding === undefined || (binding.project === undefined && identity.keyDigest !== undefined);
}

/**
 * Refuses a run against another service than the state's: exit 2, both named, and the way out.
 * Every loopback base URL counts as one service, "a local emulator", whatever its port: an
 * emulator started on port 0 gets another port every time. A run without a key is checked on the
 * base URL alone (plan without --refresh needs none).
 */
export function checkBinding(binding: StateBinding | undefined, identity: ServiceIdentity, location: string): void {
  if (binding === undefined) return;
  if (!sameService(binding.service, identity.service)) {
    const toEmulator = identity.service === EMULATOR_SERVICE || binding.service === EMULATOR_SERVICE;
    throw new UsageError(
      `the state ${location} is bound to ${describeService(binding.service)}, and this run is against ${describeService(identity.service)}; nothing was sent and nothing was written`,
      toEmulator
        ? 'give the emulator a state of its own (such as --state /tmp/demo/state.json), or unset SESSIONCTL_STATE for emulator runs'
        : 'point --state at the state of this service; if these same sessions now answer at this URL, run `sessionctl state rebind` (it reads every recorded session there first)',
    );
  }
  const recorded = binding.project === undefined ? undefined : PROJECT.exec(binding.project);
  if (recorded === null) throw new UsageError(`the state ${location} records a service binding that sessionctl cannot read (project "${binding.project}")`, 'run `sessionctl state rebind` to record it again');
  if (recorded === undefined || identity.keyDigest === undefined) return;
  const [, salt, digest] = recorded as unknown as [string, string, string];
  const ours = identity.keyDigest(salt);
  if (!timingSafeEqual(Buffer.from(ours), Buffer.from(digest))) {
    throw new UsageError(
      `the state ${location} is bound to another API key (key fingerprint ${digest.slice(0, 8)}; this run's key: ${ours.slice(0, 8)}) at ${describeService(binding.service)}: a key of another project finds none of the recorded sessions, and apply would create them all again; nothing was sent and nothing was written`,
      "use the key of the state's project; after a key rotation, run `sessionctl state rebind` with the new key (it reads every recorded session with it first)",
    );
  }
}

/** How a service is named in messages. */
export function describeService(service: string): string {
  return service === EMULATOR_SERVICE ? 'the in-process emulator (--emulator)' : service;
}

function sameService(a: string, b: string): boolean {
  return a === b || (isLocal(a) && isLocal(b));
}

/** A loopback base URL: a local emulator (`emulator`, the in-process one, is not a URL). */
function isLocal(service: string): boolean {
  try {
    return isLoopbackHost(new URL(service).hostname);
  } catch {
    return false;
  }
}

/** Checks a binding as stored (a state file, a pushed document); undefined when absent. */
export function parseBinding(raw: unknown, corrupt: (why: string) => Error): StateBinding | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw corrupt('"binding" is not an object');
  const b = raw as Record<string, unknown>;
  if (typeof b['service'] !== 'string' || b['service'] === '') throw corrupt('"binding.service" is not a string');
  if (typeof b['bound_at'] !== 'string') throw corrupt('"binding.bound_at" is not a string');
  if (b['project'] !== undefined && !PROJECT.test(String(b['project']))) throw corrupt('"binding.project" is not a key fingerprint');
  return { service: b['service'], ...(b['project'] !== undefined ? { project: String(b['project']) } : {}), bound_at: b['bound_at'] };
}
