import { isInputCode, isServiceCode, isStateCode } from '../diagnostics/codes.js';
import { tally, type Diagnostic } from '../diagnostics/diagnostic.js';

/** The exit codes of every command (DESIGN §2). Decided in the CLI and nowhere else. */
export const ExitCode = {
  ok: 0,
  findings: 1,
  usage: 2,
  service: 3,
  changesPending: 4,
  /**
   * `diff` of a per-user manifest: sessions of the fleet drifted (`drift/fleet`), as issue 26 asks,
   * apart from a fixed session's drift (1). The same number as `usage`: only diff gives it.
   */
  fleetDrift: 2,
  /** The state could not be read, written or locked (StateError, `state/write-failed`). */
  state: 5,
  /** Interrupted by SIGINT (Ctrl-C), as a shell reports it (128 + 2). */
  interrupted: 130,
  /** Stopped by SIGTERM (128 + 15). */
  terminated: 143,
  /** A bug in sessionctl itself; the message asks for a report. */
  internal: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code of a finished run from its diagnostics, the first that applies: input errors
 * (unreadable files, a wrong project file) are 2; a state that could not be written is 5; service
 * failures (a create or read the service refused) are 3; drift of a per-user manifest's sessions
 * (`drift/fleet`, diff only) is 2; other errors are 1; warnings are 1 only with `--strict`.
 *
 * The order is what the pipeline must do first. 2: nothing of the run can be trusted (and no
 * request was sent). 5 before 3: a run that lost its state may have left a session it could not
 * record, and the next run is blocked or needs an `import`, while a service failure is repaired
 * by running again; a pipeline that retries on 3 must not retry over a lost state.
 */
export function exitCodeForDiagnostics(diagnostics: readonly Diagnostic[], options: { strict?: boolean } = {}): ExitCodeValue {
  if (diagnostics.some((d) => d.severity === 'error' && isInputCode(d.code))) return ExitCode.usage;
  if (diagnostics.some((d) => d.severity === 'error' && isStateCode(d.code))) return ExitCode.state;
  if (diagnostics.some((d) => d.severity === 'error' && isServiceCode(d.code))) return ExitCode.service;
  if (diagnostics.some((d) => d.severity === 'error' && d.code === 'drift/fleet')) return ExitCode.fleetDrift;
  const t = tally(diagnostics);
  if (t.errors > 0 || (options.strict === true && t.warnings > 0)) return ExitCode.findings;
  return ExitCode.ok;
}
