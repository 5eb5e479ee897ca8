/**
 * `experimental.permissions` (api facts §3.6): per call of an app tool, the override for
 * `<TOOL_SLUG>:<account id>` (`__none__` when the tool runs without an account), else for
 * `*:<account id>`, else the default. The service's approval flow for the `ask_*` values is not
 * documented; the emulator takes the strict reading: a call that would need the user's approval
 * does not run (a tool-level error, as a refused call is), and `always_deny` never runs. Without
 * permissions, or with `allow_all` and no override, every call runs.
 */
import type { ExperimentalSettings } from './store.js';

export type PermissionVerdict = { run: true } | { run: false; error: string };

export function permissionFor(settings: ExperimentalSettings | undefined, toolSlug: string, accountId: string | null): PermissionVerdict {
  const permissions = settings?.permissions;
  if (permissions === undefined) return { run: true };
  const account = accountId ?? '__none__';
  const overrides = permissions.overrides ?? {};
  const key = [`${toolSlug}:${account}`, `*:${account}`].find((k) => overrides[k] !== undefined);
  const rule = key === undefined ? permissions.default : overrides[key];
  const why = key === undefined ? `permissions.default '${permissions.default}'` : `permissions.overrides['${key}'] '${rule as string}'`;
  switch (rule) {
    case 'allow_all':
    case 'always_allow':
      return { run: true };
    case 'always_deny':
      return { run: false, error: `Tool '${toolSlug}' is denied by the session's ${why}` };
    default:
      return { run: false, error: `Tool '${toolSlug}' needs the user's approval (${why}); the emulator has no approval flow, so the call did not run` };
  }
}
