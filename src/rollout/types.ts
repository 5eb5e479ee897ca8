/** What a rollout (or a repair of drift) did to the sessions of one per-user manifest. */
export interface RolloutResult {
  name: string;
  /**
   * `repair` (`apply --repair-fleet`): the sessions on the version published were read and those
   * that drifted PATCHed back to the manifest; `patched` counts those, `alreadyDone` those in sync.
   */
  kind?: 'repair';
  /** The version the sessions were rolled out to. */
  version: number;
  /** Sessions behind when the run started (the rollout's work). */
  total: number;
  /** PATCHed and recorded. */
  patched: number;
  /** Found on the new config already (a 409 re-read them: an earlier run's PATCH whose record was lost), and recorded. */
  alreadyDone: number;
  /** Left on their version: a PATCH refused or lost, an answer that drifted, a session gone. */
  failed: number;
  /** The first failures, for the report. */
  failures: RolloutFailure[];
  /** Sessions of groups whose change PATCH cannot carry: left as they are (see `replace` in the plan). */
  notPatchable: number;
  /** Sessions an `ensure` created from the older version while this run published, picked up after the first pass. */
  raced: number;
  /** Creates from the older version still under way when the run stopped waiting for them. */
  createsUnderWay: number;
  canary?: CanaryResult;
  /** Why the rollout ended before every session was on the new version. */
  stopped?: 'canary' | 'max-failures' | 'interrupted' | 'state';
  /** Sessions left untouched because the rollout stopped. */
  untouched: number;
  /** The failure budget the rollout ran with: it stops once more sessions than this failed. */
  maxFailures: number;
}

export interface RolloutFailure {
  user_id: string;
  session_id: string;
  /** `patch-refused`, `outcome-unknown`, `drifted`, `missing`, `conflict`. */
  kind: 'patch-refused' | 'outcome-unknown' | 'drifted' | 'missing' | 'conflict';
  message: string;
  /** For `drifted`: the fields that differ from the manifest. */
  fields?: string[];
}

export interface CanaryResult {
  /** Sessions the canary patched. */
  size: number;
  /** Whether each was read back on the manifest's config. */
  clean: boolean;
  /** The canary sessions that were not. */
  bad: RolloutFailure[];
}

/** Progress of a rollout, after each session. */
export interface RolloutProgress {
  name: string;
  /** Sessions done (patched, found done, failed) of `total`. */
  done: number;
  total: number;
  failed: number;
  /** Sessions per second over the run so far. */
  rate: number;
  /** Seconds left at that rate; undefined before the first session. */
  eta: number | undefined;
  phase: 'canary' | 'rollout' | 'race';
  /** What is done to each session: a rollout's PATCH (the default), diff's read, destroy's delete, a repair's PATCH. */
  verb?: 'diff' | 'delete' | 'repair';
}
