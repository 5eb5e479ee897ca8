/** How bad a finding is: errors fail a run, warnings fail it with `--strict`, info never does. */
export type Severity = 'error' | 'warning' | 'info';

export interface CodeInfo {
  /** The severity a finding of this code has unless a rule decides otherwise. */
  readonly severity: Severity;
  /** One line for the rules table, SARIF `shortDescription` and `--help`. */
  readonly description: string;
  /**
   * Its findings mean the file could not be read, parsed or shaped into a manifest at all (or the
   * configuration itself is wrong): nothing built from it could be trusted, so `sessionctl.yaml`
   * cannot turn it down and no comment can suppress it.
   */
  readonly locked?: true;
}

/**
 * The one catalogue of diagnostic codes. Codes are stable: tests, CI filters and SARIF baselines
 * match on them, so a code is never renamed or reused. Grouped by the stage that reports them:
 *
 * - `input/`  the file could not be read as text at all (exit code 2)
 * - `yaml/`   the text is not a YAML document we accept
 * - `env/`    `${VAR}` interpolation
 * - `schema/` the document does not match `schemas/session-manifest.schema.json`
 * - `rule/`   semantic rules beyond the schema (one file each under `src/validate/rules/`)
 * - `catalog/` toolkit and tool slugs checked against the bundled (or `--catalog`) catalogue
 * - `config/` the project configuration, `sessionctl.yaml` (exit code 2: the run cannot be trusted)
 * - `suppression/` inline `# sessionctl-ignore` comments
 * - `drift/`, `state/`, `apply/`, `api/` are added by the stages that own them.
 *
 * One family is not listed here: `policy/<id>`, the findings of the policies a project declares in
 * its `sessionctl.yaml` (`PolicyCode`). Their severity and description come from the config.
 */
export const catalogue = {
  'input/not-found': { severity: 'error', locked: true, description: 'A path given on the command line does not exist or matched no manifest.' },
  'input/unreadable': { severity: 'error', locked: true, description: 'A file could not be read (permissions, a directory where a file was expected, an I/O error).' },
  'input/too-large': { severity: 'error', locked: true, description: 'A file is larger than the size limit (1 MiB by default, `--max-file-size`), or holds more YAML tokens (250,000) or documents (1,000) than a manifest file needs.' },
  'input/binary': { severity: 'error', locked: true, description: 'A file contains NUL bytes or other binary content and is not a YAML text file.' },
  'input/invalid-utf8': { severity: 'error', locked: true, description: 'A file is not valid UTF-8.' },
  'input/utf16': { severity: 'error', locked: true, description: 'A file is encoded as UTF-16 or UTF-32; manifests must be UTF-8.' },
  'input/too-deep': { severity: 'error', locked: true, description: 'Collections are nested deeper than the limit; checked before the YAML is composed.' },
  'input/env-file': { severity: 'error', locked: true, description: 'The `--env-file` could not be read or parsed.' },
  'input/bad-pattern': { severity: 'error', locked: true, description: 'A glob pattern on the command line is not valid (an unclosed `[` or `{`, a reversed range such as `[z-a]`, too many `{...}` alternatives).' },
  'input/symlink-outside': { severity: 'error', locked: true, description: 'A folder or glob search met a symbolic link that leads out of the folders being searched; it is not followed (name its target explicitly).' },
  'input/symlink-loop': { severity: 'error', locked: true, description: 'A folder or glob search met a symbolic link that leads back to itself; it is not followed.' },

  'yaml/syntax': { severity: 'error', locked: true, description: 'The text is not well-formed YAML; the message names the parser\'s own error code.' },
  'yaml/duplicate-key': { severity: 'error', locked: true, description: 'A mapping has the same key twice; YAML parsers disagree on which value wins.' },
  'yaml/tab-indent': { severity: 'error', locked: true, description: 'A tab is used for indentation, which YAML forbids.' },
  'yaml/excessive-aliases': { severity: 'error', locked: true, description: 'The document uses more aliases, or expands to more data, than the limit (a defence against alias bombs).' },
  'yaml/unknown-tag': { severity: 'error', locked: true, description: 'A node has a tag (`!foo`, `!!js/function`) that manifests do not use; nothing is ever loaded as code.' },
  'yaml/non-string-key': { severity: 'error', locked: true, description: 'A mapping key is not a string (a number, a collection or null).' },
  'yaml/directive': { severity: 'warning', description: 'A `%YAML` directive asks for another YAML version; manifests are always read as YAML 1.2.' },
  'yaml/yaml11-scalar': { severity: 'warning', description: 'A plain scalar such as `yes`, `on` or `0755` means something else to a YAML 1.1 parser; quote it.' },
  'yaml/empty': { severity: 'warning', description: 'A file or document holds no manifest (empty, or comments only).' },

  'env/unset-variable': { severity: 'error', description: 'A `${VAR}` refers to an environment variable that is not set and has no `:-default`.' },
  'env/placeholder': { severity: 'info', description: 'With `validate --unset-variables placeholder` (pull requests without the pipeline\'s secrets): a `${VAR}` that is not set stands for an unknown value; the checks of that value are skipped, every other check runs.' },
  'env/too-large': { severity: 'error', description: 'Expanding `${VAR}` makes a value longer than 64 Ki characters, or a document larger than the file size limit; the value is left as written.' },
  'env/bad-reference': { severity: 'error', description: 'A `${` is not a well-formed `${NAME}` or `${NAME:-default}` reference (write `$${` for a literal).' },

  'schema/unknown-key': { severity: 'error', description: 'A key the manifest schema does not define; every object is closed so that a typo is found.' },
  'schema/type': { severity: 'error', locked: true, description: 'A value has the wrong type.' },
  'schema/required': { severity: 'error', locked: true, description: 'A required key is missing.' },
  'schema/enum': { severity: 'error', description: 'A value is not one of the allowed values.' },
  'schema/pattern': { severity: 'error', description: 'A string does not match the required pattern.' },
  'schema/format': { severity: 'error', description: 'A string is not in the required format (URI, time zone, ...).' },
  'schema/limit': { severity: 'error', description: 'A value is outside its bounds (length, number of items, range).' },
  'schema/variant': { severity: 'error', locked: true, description: 'A value matches none of the shapes allowed at that place.' },
  'schema/duplicate-item': { severity: 'error', description: 'A list names the same item twice.' },
  'schema/forbidden-key': { severity: 'error', locked: true, description: 'A key such as `__proto__`, `constructor` or `prototype` that is never allowed in a manifest.' },

  'rule/allowlist-with-denylist': { severity: 'error', description: '`toolkits` sets both `enable` and `disable`; the service accepts only one.' },
  'rule/tools-variant': { severity: 'error', description: 'A toolkit under `tools` does not set exactly one of `enable`, `disable` or `tags`.' },
  'rule/toolkit-not-enabled': { severity: 'error', description: '`tools`, `auth_configs` or `connected_accounts` names a toolkit that the allowlist omits or the denylist removes.' },
  'rule/tag-conflict': { severity: 'error', description: 'A tag is both enabled and disabled in the same filter.' },
  'rule/name-from-file': { severity: 'error', description: 'A manifest without `name:` takes its name from its file, and that file name is not a valid manifest name (lowercase letters, digits and hyphens, at most 63): declare `name:`.' },
  'rule/proxy-without-workbench': { severity: 'warning', description: '`workbench.enable_proxy_execution` is set while the workbench is off, so it has no effect.' },
  'rule/wait-without-manage-connections': { severity: 'warning', description: '`enable_wait_for_connections` is on while connection management is off: the agent cannot start the connections it would wait for.' },
  'rule/empty-allowlist': { severity: 'warning', description: '`toolkits.enable` is empty, so the session can use no toolkit at all.' },
  'rule/duplicate-name': { severity: 'error', description: 'Two manifests in one run have the same name; names identify sessions in the state file.' },
  'rule/literal-api-key': { severity: 'error', description: 'A value looks like an API key or other secret; reference it through `${VAR}` instead.' },
  'rule/per-user-placeholder': { severity: 'error', description: 'A `user_id` tries to make the manifest per-user and does not: `<end-user>` with other text around it or behind a variable, a look-alike (`<user>`, `{{user}}`), or a variable named for every user (`${END_USER}`).' },
  'rule/per-user-pinned-account': { severity: 'error', description: 'A per-user manifest (`user_id: <end-user>`) pins `connected_accounts`: an account belongs to one user, and every end user\'s session would use it.' },
  'rule/misplaced-key': { severity: 'error', description: 'A keyword (`enable`, `disable`, `tags`) stands where a toolkit slug belongs, as in `tools.enable`: it is read as a toolkit of that name. The hint names the likely intent.' },

  'catalog/unknown-toolkit': { severity: 'warning', description: 'A toolkit slug that the catalogue does not know (with the closest known slug). A warning by default: the service\'s catalogue moves; make it an error in `sessionctl.yaml`.' },
  'catalog/unknown-tool': { severity: 'warning', description: 'A tool slug that the catalogue does not list for its toolkit (with the closest known slug).' },
  'catalog/tool-wrong-toolkit': { severity: 'warning', description: 'A tool listed under a toolkit it does not belong to; the message names the right toolkit.' },

  'config/not-found': { severity: 'error', locked: true, description: 'The file given with `--config` does not exist or is not a file, or the `sessionctl.yaml` found in a folder is no file (a folder, a symbolic link to nothing).' },
  'config/unknown-key': { severity: 'error', locked: true, description: 'A key that the project configuration schema does not define (`schemas/sessionctl-config.schema.json`).' },
  'config/type': { severity: 'error', locked: true, description: 'A value in `sessionctl.yaml` has the wrong type.' },
  'config/required': { severity: 'error', locked: true, description: 'A key that `sessionctl.yaml` requires is missing (a policy without `id` or `message`, an override without `files`).' },
  'config/invalid-value': { severity: 'error', locked: true, description: 'A value in `sessionctl.yaml` is not allowed (not one of the choices, the wrong format, out of bounds, or a second YAML document).' },
  'config/unknown-code': { severity: 'error', locked: true, description: '`rules` or `overrides` name a diagnostic code that does not exist, or a policy the file does not declare.' },
  'config/locked-code': { severity: 'error', locked: true, description: '`rules` or `overrides` try to change a code that cannot be turned down: the file could not be read or parsed, the document is not the shape of a manifest, or the configuration itself is wrong.' },
  'config/policy-condition': { severity: 'error', locked: true, description: 'A policy sets no condition or more than one; each policy states exactly one.' },
  'config/duplicate-policy': { severity: 'error', locked: true, description: 'Two policies have the same `id`; the id is the finding\'s code (`policy/<id>`).' },
  'config/unsafe-pattern': { severity: 'error', locked: true, description: 'A policy pattern is not a valid regular expression, or could take exponential or polynomial time (nested or overlapping repetition, or one text matched in two ways); see docs/policies.md.' },
  'config/outside-repository': { severity: 'error', locked: true, description: '`sessionctl.yaml` names a path outside the repository it belongs to (`..`, an absolute path, or a symbolic link that leads out): a report file, the state, the catalogue, an env file or a manifest path. The file is committed, so a pull request could make a run read, print or overwrite files elsewhere; a path of your own goes on the command line.' },
  'config/secret': { severity: 'error', locked: true, description: '`sessionctl.yaml` holds what looks like an API key, a token or a password; it is committed, so secrets stay in the environment.' },

  'suppression/missing-reason': { severity: 'warning', description: 'A `# sessionctl-ignore` comment gives no reason after `:`; the reason is what a reviewer reads.' },
  'suppression/unused': { severity: 'warning', description: 'A `# sessionctl-ignore` comment suppresses nothing: no finding of that code is on its line or the next (or, for `-file`, in the file).' },
  'suppression/unknown-code': { severity: 'warning', description: 'A `# sessionctl-ignore` comment names a code that does not exist, or one that cannot be suppressed.' },

  'drift/changed': { severity: 'error', description: 'A declared key, or a member of a declared list, holds another value at the service than the manifest declares.' },
  'drift/dropped': { severity: 'error', description: 'A declared key is not echoed by the service: it was silently ignored.' },
  'drift/added': { severity: 'warning', description: 'The service holds a value the manifest does not declare and that differs from the documented default (an error with `--strict`).' },
  'drift/fleet': { severity: 'error', description: 'Recorded sessions of a per-user manifest differ from it at a field (`diff` of a per-user manifest): counted per field, with a few of their users; `diff --user USER` shows one session\'s whole diff, and `apply --repair-fleet` repairs them. Sessions on an older published version are not drift: the next apply rolls them out.' },

  'state/not-applied': { severity: 'error', description: 'A manifest has no session recorded in the state file; run `sessionctl apply` first.' },
  'state/per-user-not-covered': { severity: 'warning', description: 'No longer reported: `diff` now reads and `destroy` deletes the end users\' sessions of a per-user manifest (`user_id: <end-user>`). Kept so that configurations and filters that name it stay valid.' },
  'state/session-missing': { severity: 'warning', description: 'The session recorded for a manifest no longer answers (404); plan and apply treat it as not applied and create it again. When two or more, and all, of the sessions read answer so (or more than `--max-missing`), the run stops before any change instead: a key of another project or another base URL is the likely cause (`--recreate-missing` goes on).' },
  'state/write-failed': { severity: 'error', description: 'The state could not be written (a file that cannot be replaced, a database that refused or stopped answering, a lock lost): what the message names is not recorded, and the run starts nothing after it. A session created but not recorded is named, with the `sessionctl import` command that adopts it.' },
  'state/outcome-unknown': { severity: 'error', description: 'A create was sent but its outcome is unknown (the run was interrupted, timed out, or got a malformed answer): a session may exist that the state does not record. Nothing is sent for the manifest until the session is adopted (`sessionctl import`) or `--recreate-unknown` creates it again.' },
  'state/import-refused': { severity: 'error', description: 'A session cannot be imported under a manifest: it acts for another user than the manifest declares.' },
  'state/refresh-failed': { severity: 'error', description: 'Reading a recorded session (GET) failed, so whether it still exists and matches could not be checked.' },

  'plan/shared-session': { severity: 'warning', description: 'A manifest is gone (`--prune`), but its session is also recorded for a manifest that stays (adopted twice with `import`): the session is not deleted.' },
  'plan/renamed': { severity: 'info', description: 'A manifest is created for a user whose session, recorded under another name that is gone from the paths, was applied from the same body: a renamed `name:`. `sessionctl state mv OLD NEW` keeps that session instead of deleting it and creating another.' },
  'plan/stale': { severity: 'error', description: 'A saved plan no longer matches the manifests or the state file, or a session moved since it was reviewed (another config version, gone, or drifted): nothing of it is applied, and a PATCH carries the reviewed version, so that another writer\'s change is never overwritten; run `sessionctl plan --out` again.' },

  'apply/create-failed': { severity: 'error', description: 'The service refused or failed a session create; nothing was recorded for this manifest.' },
  'apply/update-failed': { severity: 'error', description: 'The service refused or failed a PATCH of a session; the session and the state keep what they had.' },
  'apply/conflict': { severity: 'error', description: 'A PATCH found the session at another config version than the one sessionctl read (409): someone else changed it. Nothing was overwritten.' },
  'apply/version-invalid': { severity: 'error', description: 'An update was not sent: the config version the session was read at (as the service answered it, or as the state records it) is not a whole number from 0 to 2^53, so the PATCH could not carry it, and without it could overwrite a change made since.' },
  'apply/delete-failed': { severity: 'error', description: 'The service refused or failed the DELETE of a session; it stays recorded (a replaced session: the next apply deletes it again).' },
  'apply/interrupted': { severity: 'error', description: 'The run was interrupted (SIGINT or SIGTERM) before this manifest was applied: nothing was sent for it, or what was sent was still unanswered when the wait ended (the next run reads the session again).' },
  'apply/fleet-left': { severity: 'warning', description: 'A destroy or prune of a per-user manifest left rows recorded that it could not delete: creates of unknown outcome (no session id; a session may exist for those users), or creates still under way when its publication was removed. Look for those sessions, then `sessionctl state rm NAME --user-id USER`, or run the destroy again.' },
  'apply/outcome-unknown': { severity: 'error', description: 'A create was sent and not answered with its documented 201 or a clear refusal (a timeout or reset after it was sent, an unreadable body, a 200, 3xx or 5xx other than a 503 with Retry-After); a session may exist that is not recorded. Check before re-running.' },
  'rollout/failed': { severity: 'error', description: 'Sessions of a per-user manifest were not rolled out to its new version: the service refused or lost their PATCH, answered it with another config than the manifest declares, or no longer has the session. They stay on their version (the state says which), and the next apply retries them.' },
  'rollout/canary-failed': { severity: 'error', description: 'The rollout\'s canary sessions were not on the manifest\'s config when read back after their PATCH (or their PATCH failed): the rollout stopped there, and every other session was left untouched.' },
  'rollout/stopped': { severity: 'error', description: 'The rollout stopped before every session was on the new version: more sessions failed than `--max-failures` allows, the run was interrupted, or the state could not be written. The rest are untouched; the next apply resumes where it stopped.' },
  'rollout/repair-failed': { severity: 'error', description: 'Drifted sessions of a per-user manifest were not repaired by `apply --repair-fleet`: the service refused or lost the PATCH, answered it with another config, no longer has the session, or the drift is in a field that holds a value the application fills from its own environment. They keep their drift; `diff` shows it.' },
  'rollout/needs-replace': { severity: 'error', description: 'Sessions of a per-user manifest were given a version whose change PATCH cannot carry (`experimental.custom_tools`, the assistive prompt\'s config, a field the API version\'s PATCH does not take): they keep their config until they are replaced. New users get the new version.' },
} as const satisfies Record<string, CodeInfo>;

/** A code of the static catalogue. */
export type CatalogueCode = keyof typeof catalogue;

/** The code of a finding of a project policy: `policy/` and the policy's id from `sessionctl.yaml`. */
export type PolicyCode = `policy/${string}`;

export type Code = CatalogueCode | PolicyCode;

export const codes = Object.keys(catalogue) as CatalogueCode[];

/** What a policy code means when its policy is not at hand (the policy itself sets the severity). */
const policyInfo: CodeInfo = { severity: 'error', description: 'A policy of the project configuration (`sessionctl.yaml`); see docs/policies.md.' };

export function isPolicyCode(code: string): code is PolicyCode {
  return code.startsWith('policy/');
}

export function isCatalogueCode(code: string): code is CatalogueCode {
  return Object.hasOwn(catalogue, code);
}

export function codeInfo(code: Code): CodeInfo {
  return isPolicyCode(code) ? policyInfo : catalogue[code];
}

/** The anchor of a code in `docs/rules.md`. */
export function docsAnchor(code: Code): string {
  return code.replace(/[^a-z0-9]+/g, '-');
}

/**
 * Codes whose errors mean the input could not be read at all, or the project configuration is
 * wrong (so no finding of the run could be trusted): exit code 2, not 1.
 */
export function isInputCode(code: Code): boolean {
  return code.startsWith('input/') || code.startsWith('config/');
}

/**
 * Codes that `sessionctl.yaml` cannot turn down and comments cannot suppress (`locked` in the
 * catalogue): the file could not be read or parsed into a document, the document is not the shape
 * of a manifest (a missing `user_id`, a list where a mapping belongs: a plan of it would show
 * `user undefined` and send what the manifest does not say), or the configuration is itself wrong.
 * Everything else is the project's call.
 */
export function isLockedCode(code: Code): boolean {
  return isCatalogueCode(code) && (catalogue[code] as CodeInfo).locked === true;
}

/**
 * Codes whose errors mean the state could not be written: exit code 5, as a StateError that ends
 * a run would be, even when every request went through.
 */
export function isStateCode(code: Code): boolean {
  return code === 'state/write-failed';
}

/**
 * Codes whose errors mean the service failed or refused (a create, a read): exit code 3, as an
 * ApiError that ends a run would be, even when other manifests went through.
 */
export function isServiceCode(code: Code): boolean {
  return (
    code === 'apply/create-failed' ||
    code === 'apply/outcome-unknown' ||
    code === 'apply/update-failed' ||
    code === 'apply/conflict' ||
    code === 'apply/version-invalid' ||
    code === 'apply/delete-failed' ||
    code === 'rollout/failed' ||
    code === 'rollout/canary-failed' ||
    code === 'rollout/repair-failed' ||
    code === 'state/refresh-failed'
  );
}
