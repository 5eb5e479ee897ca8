import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Report } from '../report/types.js';
import { API_KEY_ENV } from '../client/api-key.js';
import type { ServiceIdentity } from '../state/binding.js';
import type { ApiVersion } from '../wire/json.js';
import type { StateBackend } from '../state/backend.js';
import type { ValueMasker } from '../util/sensitive.js';
import type { InputOptions, ValidatedManifests } from './inputs.js';

/** What every plan, apply and diff run is given. */
export interface RunBase extends InputOptions {
  /** Where the state is. */
  state: StateBackend;
  /** The service the run talks to, for the state's binding (apply and import bind a state to it). */
  service?: ServiceIdentity;
  /**
   * The state's guards (see `guardState`), run once the manifests are valid and before the state
   * is read: a manifest's own findings come first, whatever the state.
   */
  guard?: () => Promise<void>;
  /** The report shows sensitive values as they are (`--show-sensitive`); the API key stays masked. */
  revealSensitive?: boolean;
  /** The API version the run speaks (plan agrees with its PATCH contract; per-user manifests are published with it). Default 3. */
  apiVersion?: ApiVersion;
}

/** What a plan, apply or diff run hands back to its command: the report and what renders it. */
export interface RunOutcome {
  report: Report;
  sources: Map<string, string>;
  /** Literal secrets seen in manifests, for the redactor. */
  secrets: string[];
}

/** A report over the inputs and any further findings; diagnostics sorted, summary counted. */
export function makeReport(command: string, inputs: ValidatedManifests, more: readonly Diagnostic[] = []): Report {
  const diagnostics = sortDiagnostics([...inputs.diagnostics, ...more]);
  const report: Report = {
    command,
    files: inputs.files,
    diagnostics,
    suppressed: inputs.suppressed,
    summary: { ...tally(diagnostics), files: inputs.files.length, manifests: inputs.documents.length, suppressed: inputs.suppressed.length },
  };
  if (inputs.policies.length > 0) report.policies = inputs.policies;
  return report;
}

/** The outcome of a run that stopped at its inputs (a finding blocked it) or adds no block of its own. */
export function outcomeOf(command: string, inputs: ValidatedManifests, more: readonly Diagnostic[] = []): RunOutcome {
  return { report: makeReport(command, inputs, more), sources: inputs.sources, secrets: inputs.secrets };
}

/**
 * The report as every format may show it: each sensitive value of the run masked in the domain's
 * own data (plan bodies, changes, drift, messages, service answers), before any renderer escapes
 * anything. With `reveal`, only the API key stays masked.
 */
export function maskReport<T extends { report: Report }>(outcome: T, masker: ValueMasker, reveal: boolean | undefined): T {
  const shown = reveal === true ? masker.filter((label) => label === API_KEY_ENV) : masker;
  return { ...outcome, report: shown.json(outcome.report) };
}
