import { InputError } from '../diagnostics/errors.js';

/**
 * The error of a command that reads a state that is not there: which one, what "not there" means
 * for its kind, and how a state comes to be. Only plan and apply (and import, push) start one.
 */
export function missingState(state: { kind: 'file' | 'postgres'; location: string }, otherWorkspaces: readonly string[] = []): InputError {
  if (state.kind === 'file') {
    return new InputError('no state file is there: nothing was ever applied with this state, or the path is mistyped (a pipeline must restore or share its state: see PostgreSQL in docs/state.md)', state.location);
  }
  const others = otherWorkspaces.length > 0 ? `; the workspaces that exist: ${otherWorkspaces.join(', ')}` : '';
  return new InputError(`no state is in this database for that schema and workspace: nothing was ever applied there, or the URL is mistyped${others}`, state.location);
}
