import { UsageError } from '../diagnostics/errors.js';
import { checkBinding, type ServiceIdentity } from './binding.js';
import { missingState } from './missing.js';
import type { StateOrigin } from './store.js';

/** How a command uses the state: `read` needs one that exists; `start` (plan, apply, import, push) may begin one. */
export type StateUse = 'read' | 'start';

export interface GuardInput {
  kind: 'file' | 'postgres';
  location: string;
  origin: StateOrigin;
  use: StateUse;
  /** The service of the run; undefined for commands that talk to none (the state commands). */
  identity?: ServiceIdentity;
  /** `--require-state` or the project's `require_state`: a new state or workspace is an error. */
  requireState?: boolean;
  /** The run is in CI (`CI` set): a file state that is not there is most likely one not restored. */
  ci?: boolean;
}

/** What to tell the user before the run goes on: one line each, on standard error. */
export interface GuardNote {
  level: 'note' | 'warning';
  message: string;
  hint?: string;
}

const POSTGRES_HINT = 'keep the state of a pipeline in PostgreSQL (SESSIONCTL_STATE=postgres://USER@HOST/DATABASE?workspace=production, the password in PGPASSWORD); --require-state makes this an error';

/**
 * The guards every command runs before it reads or writes anything: the state must be there for a
 * command that only reads it; one that begins a state says so (and refuses with `requireState`);
 * a state bound to another service refuses the run. Throws the refusal; returns the notes.
 */
export function guardState(input: GuardInput): GuardNote[] {
  const { origin } = input;
  if (input.identity !== undefined) checkBinding(origin.binding, input.identity, input.location);
  if (origin.exists) return [];
  if (input.use === 'read') throw missingState(input, origin.otherWorkspaces);
  const others = origin.otherWorkspaces ?? [];
  const what = others.length > 0 ? `new workspace at ${input.location}, beside the workspaces that exist: ${others.join(', ')}` : `new state at ${input.location}`;
  if (input.requireState === true) {
    const exist = others.length > 0 ? ` (the workspaces that exist: ${others.join(', ')})` : '';
    throw new UsageError(
      `no state is at ${input.location}${exist}, and this run requires one (--require-state): nothing was planned, sent or written`,
      others.length > 0 ? 'workspace names are case-sensitive: fix the workspace in --state / SESSIONCTL_STATE' : 'restore the state or fix --state / SESSIONCTL_STATE; leave out --require-state only for the very first apply',
    );
  }
  if (input.ci === true && input.kind === 'file') {
    return [{ level: 'warning', message: `CI is set and no state file is at ${input.location}: every manifest is planned for create, and apply creates each session again even if an earlier pipeline applied it`, hint: POSTGRES_HINT }];
  }
  return [{ level: 'note', message: `${what} (nothing is recorded there yet)` }];
}
