import { codes, isCatalogueCode, isLockedCode, isPolicyCode, type Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { excerpt } from '../diagnostics/excerpt.js';
import { compileGlob, GlobError } from '../manifest/glob.js';
import type { ManifestDocument } from '../manifest/types.js';
import { didYouMean } from '../validate/did-you-mean.js';
import { policyKinds } from '../validate/policies/index.js';
import { patternProblem } from '../validate/policies/safe-pattern.js';
import { dottedPath } from '../validate/pointer.js';
import { joinPointer } from '../util/json-pointer.js';
import { asPlainObject } from '../util/plain-object.js';

/** Pattern-valued conditions, whose patterns must be safe to run. */
const PATTERN_KINDS = new Set(['user_id_pattern', 'auth_config_pattern']);

/** Every glob of the file, with its place: `ignore`, `overrides[].files`, `policies[].files`. */
function globsOf(data: Record<string, unknown> | undefined, overrides: unknown[], policies: ReturnType<typeof policiesOf>): Array<{ pointer: string; glob: string }> {
  const lists: Array<[string, unknown]> = [
    ['/ignore', data?.['ignore']],
    ...overrides.map((o, i): [string, unknown] => [joinPointer('/overrides', i, 'files'), asPlainObject(o)?.['files']]),
    ...policies.map((p): [string, unknown] => [joinPointer('/policies', p.index, 'files'), p.policy['files']]),
  ];
  return lists.flatMap(([pointer, list]) => (Array.isArray(list) ? list.flatMap((g, i) => (typeof g === 'string' ? [{ pointer: joinPointer(pointer, i), glob: g }] : [])) : []));
}

/**
 * Why a glob of the file cannot be compiled (an unclosed `[` or `{`, a reversed range, too many
 * alternatives), or undefined. Matching itself is bounded (manifest/glob.ts matches without
 * backtracking regular expressions), so only syntax is refused.
 */
export function globProblem(glob: string): string | undefined {
  try {
    compileGlob(glob);
    return undefined;
  } catch (err) {
    if (err instanceof GlobError) return err.reason;
    throw err;
  }
}

/** The keys of a policy besides its condition. */
const POLICY_KEYS = new Set(['id', 'message', 'severity', 'hint', 'files']);

const groups = new Set(codes.map((c) => c.slice(0, c.indexOf('/'))));

function at(doc: ManifestDocument, code: Code, pointer: string, message: string, hint: string, key = false, related?: { pointer: string; message: string }): Diagnostic {
  const d: Diagnostic = { code, severity: 'error', message, hint, file: doc.file, pointer, range: doc.locate(pointer, { key }) };
  if (related !== undefined) d.related = [{ message: related.message, file: doc.file, range: doc.locate(related.pointer) }];
  return d;
}

/** The policies of the file that have the shape checked here (the schema reports the others). */
function policiesOf(data: Record<string, unknown> | undefined): Array<{ index: number; policy: Record<string, unknown>; id: string }> {
  const list = data?.['policies'];
  if (!Array.isArray(list)) return [];
  return list.flatMap((p, index) => {
    const policy = asPlainObject(p);
    return policy !== undefined && typeof policy['id'] === 'string' ? [{ index, policy, id: policy['id'] }] : [];
  });
}

/**
 * What the schema cannot say about `sessionctl.yaml`: every code that `rules` and `overrides`
 * name exists and may be changed, and each policy has exactly one condition, an id of its own and
 * patterns that are safe to run. Runs beside the schema (on whatever has the right shape), so
 * that one pass shows every problem of the file.
 */
export function configChecks(doc: ManifestDocument): Diagnostic[] {
  const data = asPlainObject(doc.data);
  const policies = policiesOf(data);
  const policyIds = new Set(policies.map((p) => p.id));
  const out: Diagnostic[] = [];
  const overrides = Array.isArray(data?.['overrides']) ? (data['overrides'] as unknown[]) : [];
  const ruleMaps: Array<[string, Record<string, unknown> | undefined]> = [
    ['/rules', asPlainObject(data?.['rules'])],
    ...overrides.map((o, i): [string, Record<string, unknown> | undefined] => [joinPointer('/overrides', i, 'rules'), asPlainObject(asPlainObject(o)?.['rules'])]),
  ];
  for (const [pointer, rules] of ruleMaps) {
    for (const code of Object.keys(rules ?? {})) out.push(...codeProblems(doc, joinPointer(pointer, code), code, policyIds));
  }
  out.push(...policyProblems(doc, policies));
  for (const { pointer, glob } of globsOf(data, overrides, policies)) {
    const problem = globProblem(glob);
    if (problem !== undefined) out.push(at(doc, 'config/invalid-value', pointer, `the glob \`${excerpt(glob)}\` is not valid: ${problem}`, 'Write it as `teams/**/*.yaml` or `**/drafts/**` are written: `*` within a folder name, `**` across folders, `{a,b}` and `[abc]` closed.'));
  }
  const state = data?.['state'];
  if (typeof state === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(state) && !/^postgres(?:ql)?:\/\//i.test(state) && !/^[a-z]:[\\/]/i.test(state)) {
    out.push(at(doc, 'config/invalid-value', '/state', '`state` is neither a file path nor a `postgres://` URL', 'Write a path such as `.sessionctl/state.json`, or `postgres://user@host:5432/db` (the password comes from PGPASSWORD).'));
  }
  return out;
}

function codeProblems(doc: ManifestDocument, pointer: string, code: string, policyIds: ReadonlySet<string>): Diagnostic[] {
  const locked = (what: string): Diagnostic[] => [
    at(doc, 'config/locked-code', pointer, `${what} cannot be turned down`, 'Unreadable files, YAML that does not parse, a document that is not the shape of a manifest and the configuration\'s own errors are always reported.', true),
  ];
  if (code.endsWith('/*')) {
    const group = code.slice(0, -2);
    if (group === 'input' || group === 'config') return locked(`\`${code}\``);
    if (groups.has(group) || group === 'policy') return [];
  } else if (isPolicyCode(code)) {
    if (policyIds.has(code.slice('policy/'.length))) return [];
  } else if (isCatalogueCode(code)) {
    return isLockedCode(code) ? locked(`\`${code}\``) : [];
  }
  const suggestion = didYouMean(code, [...codes, ...[...policyIds].map((id) => `policy/${id}`)]);
  return [
    at(
      doc,
      'config/unknown-code',
      pointer,
      isPolicyCode(code) ? `\`${code}\` names no policy of this file` : `\`${code}\` is not a diagnostic code`,
      suggestion !== undefined ? `Did you mean \`${suggestion}\`?` : 'Codes are listed in docs/rules.md; `group/*` names a whole group, `policy/<id>` a policy of this file.',
      true,
    ),
  ];
}

function policyProblems(doc: ManifestDocument, policies: ReturnType<typeof policiesOf>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const firstId = new Map<string, number>();
  const kindNames = policyKinds.map((k) => k.name);
  for (const { index: i, policy, id } of policies) {
    const base = joinPointer('/policies', i);
    const earlier = firstId.get(id);
    if (earlier === undefined) firstId.set(id, i);
    else {
      out.push(
        at(doc, 'config/duplicate-policy', joinPointer(base, 'id'), `two policies have the id \`${id}\``, 'Give each policy its own id: it is the code of its findings.', false, {
          pointer: joinPointer('/policies', earlier, 'id'),
          message: 'the first policy with this id',
        }),
      );
    }
    const set = Object.keys(policy).filter((k) => kindNames.includes(k));
    // A policy with an unknown key most likely misspells its condition: the schema says which.
    const misspelt = Object.keys(policy).some((k) => !kindNames.includes(k) && !POLICY_KEYS.has(k));
    if (set.length === 0 && !misspelt) {
      out.push(at(doc, 'config/policy-condition', joinPointer(base, 'id'), `policy \`${id}\` sets no condition`, `Add exactly one of: ${kindNames.join(', ')}.`));
    } else if (set.length > 1) {
      out.push(
        at(doc, 'config/policy-condition', joinPointer(base, set[1]!), `policy \`${id}\` sets ${set.map((k) => `\`${k}\``).join(' and ')}; a policy has exactly one condition`, 'Split it into one policy per condition, each with its own id.', true),
      );
    }
    for (const kind of set.filter((k) => PATTERN_KINDS.has(k))) {
      const pattern = policy[kind];
      const problem = typeof pattern === 'string' ? patternProblem(pattern) : undefined;
      if (problem === undefined) continue;
      out.push(
        at(
          doc,
          'config/unsafe-pattern',
          joinPointer(base, kind),
          `\`${dottedPath(joinPointer(base, kind), doc.data)}\` is refused: ${problem}`,
          'Write the pattern without nested or back-to-back repetition of the same characters, such as `^[a-z]+-[0-9]+$`; see "Patterns" in docs/policies.md.',
        ),
      );
    }
  }
  return out;
}
