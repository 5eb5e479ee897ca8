import { codes, isCatalogueCode, isLockedCode, isPolicyCode, type Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { didYouMean } from '../validate/did-you-mean.js';
import { policyKinds } from '../validate/policies/index.js';
import { patternProblem } from '../validate/policies/safe-pattern.js';
import { displayPath, joinPointer } from '../validate/pointer.js';
import type { ProjectFileData } from './types.js';

/** Pattern-valued conditions, whose patterns must be safe to run. */
const PATTERN_KINDS = new Set(['user_id_pattern', 'auth_config_pattern']);

const groups = new Set(codes.map((c) => c.slice(0, c.indexOf('/'))));

function at(doc: ManifestDocument, code: Code, pointer: string, message: string, hint: string, key = false, related?: { pointer: string; message: string }): Diagnostic {
  const d: Diagnostic = { code, severity: 'error', message, hint, file: doc.file, pointer, range: doc.locate(pointer, { key }) };
  if (related !== undefined) d.related = [{ message: related.message, file: doc.file, range: doc.locate(related.pointer) }];
  return d;
}

/**
 * What the schema cannot say about a schema-valid `sessionctl.yaml`: every code that `rules` and
 * `overrides` name exists and may be changed, and each policy has exactly one condition, an id of
 * its own and patterns that are safe to run.
 */
export function configChecks(doc: ManifestDocument, data: ProjectFileData): Diagnostic[] {
  const policyIds = new Set((data.policies ?? []).map((p) => p.id));
  const out: Diagnostic[] = [];
  const ruleMaps: Array<[string, Record<string, unknown> | undefined]> = [
    ['/rules', data.rules],
    ...(data.overrides ?? []).map((o, i): [string, Record<string, unknown>] => [joinPointer('/overrides', i, 'rules'), o.rules]),
  ];
  for (const [pointer, rules] of ruleMaps) {
    for (const code of Object.keys(rules ?? {})) out.push(...codeProblems(doc, joinPointer(pointer, code), code, policyIds));
  }
  out.push(...policyProblems(doc, data));
  if (data.state !== undefined && /^[a-z][a-z0-9+.-]*:/i.test(data.state) && !/^postgres(?:ql)?:\/\//i.test(data.state) && !/^[a-z]:[\\/]/i.test(data.state)) {
    out.push(at(doc, 'config/invalid-value', '/state', '`state` is neither a file path nor a `postgres://` URL', 'Write a path such as `.sessionctl/state.json`, or `postgres://user@host:5432/db` (the password comes from PGPASSWORD).'));
  }
  return out;
}

function codeProblems(doc: ManifestDocument, pointer: string, code: string, policyIds: ReadonlySet<string>): Diagnostic[] {
  const locked = (what: string): Diagnostic[] => [
    at(doc, 'config/locked-code', pointer, `${what} cannot be turned down`, 'Unreadable files, YAML that does not parse and the configuration\'s own errors are always reported.', true),
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

function policyProblems(doc: ManifestDocument, data: ProjectFileData): Diagnostic[] {
  const out: Diagnostic[] = [];
  const firstId = new Map<string, number>();
  const kindNames = policyKinds.map((k) => k.name);
  (data.policies ?? []).forEach((policy, i) => {
    const base = joinPointer('/policies', i);
    const earlier = firstId.get(policy.id);
    if (earlier === undefined) firstId.set(policy.id, i);
    else {
      out.push(
        at(doc, 'config/duplicate-policy', joinPointer(base, 'id'), `two policies have the id \`${policy.id}\``, 'Give each policy its own id: it is the code of its findings.', false, {
          pointer: joinPointer('/policies', earlier, 'id'),
          message: 'the first policy with this id',
        }),
      );
    }
    const set = Object.keys(policy).filter((k) => kindNames.includes(k));
    if (set.length === 0) {
      out.push(at(doc, 'config/policy-condition', joinPointer(base, 'id'), `policy \`${policy.id}\` sets no condition`, `Add exactly one of: ${kindNames.join(', ')}.`));
    } else if (set.length > 1) {
      out.push(
        at(doc, 'config/policy-condition', joinPointer(base, set[1]!), `policy \`${policy.id}\` sets ${set.map((k) => `\`${k}\``).join(' and ')}; a policy has exactly one condition`, 'Split it into one policy per condition, each with its own id.', true),
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
          `\`${displayPath(joinPointer(base, kind), data)}\` is refused: ${problem}`,
          'Write the pattern without nested or back-to-back repetition of the same characters, such as `^[a-z]+-[0-9]+$`; see "Patterns" in docs/policies.md.',
        ),
      );
    }
  });
  return out;
}
