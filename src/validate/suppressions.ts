import { codeInfo, codes, isCatalogueCode, isLockedCode, isPolicyCode, type Code } from '../diagnostics/codes.js';
import type { Diagnostic, SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import type { SuppressionDirective } from '../manifest/directives.js';
import { didYouMean } from './did-you-mean.js';

export interface SuppressionResult {
  /** The findings no comment silenced. */
  kept: Diagnostic[];
  suppressed: SuppressedDiagnostic[];
  /** Findings about the comments themselves: no reason, an unknown code, nothing suppressed. */
  directiveFindings: Diagnostic[];
}

const groups = new Set(codes.map((c) => c.slice(0, c.indexOf('/'))));

/**
 * At most this many findings about the comments of one file: a file of thousands of comments
 * (generated, or hostile) is one problem, not thousands. The rest are counted in one more finding.
 */
export const MAX_DIRECTIVE_FINDINGS = 100;

/** Keeps the first findings about one file's comments and says how many more there were. */
function capped(found: Diagnostic[], file: string): Diagnostic[] {
  if (found.length <= MAX_DIRECTIVE_FINDINGS) return found;
  const rest = found.slice(MAX_DIRECTIVE_FINDINGS);
  const next = rest[0]!;
  return [
    ...found.slice(0, MAX_DIRECTIVE_FINDINGS),
    { code: next.code, severity: next.severity, message: `${rest.length} more problems with suppression comments in this file are not shown`, file, ...(next.range !== undefined ? { range: next.range } : {}) },
  ];
}

/** What a project lets comments suppress beyond the catalogue's rules. */
export interface SuppressionPolicy {
  /** The codes of the project's policies (`policy/<id>`), which comments may name. */
  policies: ReadonlySet<string>;
  /** `inline_policy_suppression: false`: a comment may not silence a policy; its findings stay. */
  policiesLocked?: boolean;
}

/** Whether a comment may name `code`: a code of the catalogue or a declared policy, or a group (`catalog/*`). */
function nameable(code: string, rules: SuppressionPolicy): 'ok' | 'unknown' | 'locked' | 'policy-locked' {
  const { policies } = rules;
  if (code.endsWith('/*')) {
    const group = code.slice(0, -2);
    if (group === 'policy') return policies.size === 0 ? 'unknown' : rules.policiesLocked === true ? 'policy-locked' : 'ok';
    if (!groups.has(group)) return 'unknown';
    return group === 'input' || group === 'config' || group === 'suppression' ? 'locked' : 'ok';
  }
  if (isPolicyCode(code)) return !policies.has(code) ? 'unknown' : rules.policiesLocked === true ? 'policy-locked' : 'ok';
  if (!isCatalogueCode(code)) return 'unknown';
  return isLockedCode(code) || code.startsWith('suppression/') ? 'locked' : 'ok';
}

/** Whether no comment may silence a finding of this code, whatever it names. */
function unsuppressible(code: Code, rules: SuppressionPolicy): boolean {
  return isLockedCode(code) || code.startsWith('suppression/') || (rules.policiesLocked === true && isPolicyCode(code));
}

function covers(written: string, code: Code): boolean {
  return written === code || (written.endsWith('/*') && code.startsWith(written.slice(0, -1)));
}

/**
 * Applies the suppression comments of each file to the findings of that file. A `line` comment
 * covers findings that start on its own line or the next; a `file` comment covers the whole file.
 * Every code a comment names must silence something (eslint's `--report-unused-disable-directives`),
 * and every comment should say why (after `:`); otherwise the comment itself is a finding.
 */
export function applySuppressions(
  diagnostics: readonly Diagnostic[],
  directives: ReadonlyMap<string, readonly SuppressionDirective[]>,
  rules: SuppressionPolicy,
): SuppressionResult {
  const result: SuppressionResult = { kept: [], suppressed: [], directiveFindings: [] };
  // Per file, the usable (directive, code) pairs, and whether each silenced anything.
  const usable = new Map<string, Array<{ directive: SuppressionDirective; code: string; used: boolean }>>();
  const problems = new Map<string, Diagnostic[]>();
  for (const [file, list] of directives) {
    const entries: Array<{ directive: SuppressionDirective; code: string; used: boolean }> = [];
    const found: Diagnostic[] = [];
    for (const directive of list) {
      found.push(...problemsOf(directive, file, rules));
      for (const { code } of directive.codes) if (nameable(code, rules) === 'ok') entries.push({ directive, code, used: false });
    }
    usable.set(file, entries);
    problems.set(file, found);
  }
  for (const d of diagnostics) {
    const entries = d.file === undefined || d.range === undefined ? undefined : usable.get(d.file);
    const line = d.range?.start.line ?? 0;
    const hit = entries?.filter(
      (e) => covers(e.code, d.code) && (e.directive.scope === 'file' || e.directive.range.start.line === line || e.directive.range.start.line === line - 1),
    );
    if (hit === undefined || hit.length === 0 || unsuppressible(d.code, rules)) {
      result.kept.push(d);
      continue;
    }
    for (const e of hit) e.used = true;
    // The nearest comment explains it: a line comment before a file comment.
    const by = hit.find((e) => e.directive.scope === 'line') ?? hit[0]!;
    result.suppressed.push({ ...d, suppression: { kind: 'inSource', justification: by.directive.reason ?? '', file: d.file!, range: by.directive.range } });
  }
  for (const [file, entries] of usable) {
    const found = problems.get(file)!;
    for (const e of entries) {
      if (e.used) continue;
      const written = e.directive.codes.find((c) => c.code === e.code)!;
      const where = e.directive.scope === 'file' ? 'in this file' : `on line ${e.directive.range.start.line} or ${e.directive.range.start.line + 1}`;
      found.push({
        code: 'suppression/unused',
        severity: codeInfo('suppression/unused').severity,
        message: `\`${e.code}\` is suppressed here, but no \`${e.code}\` finding is ${where}`,
        hint: 'Remove the code from the comment (or the whole comment): the finding it silenced is gone.',
        file,
        range: written.range,
      });
    }
    // In source order, so that the first ones shown are the first in the file.
    found.sort((a, b) => a.range!.start.line - b.range!.start.line || a.range!.start.col - b.range!.start.col);
    result.directiveFindings.push(...capped(found, file));
  }
  return result;
}

const suggestions = new Map<string, string | undefined>();

/** The closest code to a misspelt one, remembered: a file repeats its comments. */
function suggestCode(code: string, policies: ReadonlySet<string>): string | undefined {
  const key = `${code}\0${[...policies].join(',')}`;
  if (!suggestions.has(key) && suggestions.size < 1000) suggestions.set(key, didYouMean(code, [...codes, ...policies]));
  return suggestions.has(key) ? suggestions.get(key) : didYouMean(code, [...codes, ...policies]);
}

/** What is wrong with a comment itself: no code, a code that does not exist or cannot be silenced, no reason. */
function problemsOf(directive: SuppressionDirective, file: string, rules: SuppressionPolicy): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (code: Code, message: string, hint: string, range = directive.range): Diagnostic => ({ code, severity: codeInfo(code).severity, message, hint, file, range });
  const word = directive.scope === 'file' ? 'sessionctl-ignore-file' : 'sessionctl-ignore';
  if (directive.codes.length === 0) {
    out.push(at('suppression/unknown-code', `\`# ${word}\` names no code, so it suppresses nothing`, `Name the codes to silence: \`# ${word} rule/empty-allowlist: why\`.`));
  }
  for (const { code, range } of directive.codes) {
    const verdict = nameable(code, rules);
    if (verdict === 'ok') continue;
    if (verdict === 'locked') {
      out.push(at('suppression/unknown-code', `\`${code}\` cannot be suppressed`, 'Unreadable files, YAML that does not parse, a document that is not the shape of a manifest and the configuration\'s own errors are always reported; fix them instead.', range));
      continue;
    }
    if (verdict === 'policy-locked') {
      out.push(at('suppression/unknown-code', `\`${code}\` cannot be suppressed: sessionctl.yaml forbids comments to silence its policies`, 'Fix what the policy finds, or change the policy in sessionctl.yaml (`inline_policy_suppression: false` is set there).', range));
      continue;
    }
    const suggestion = suggestCode(code, rules.policies);
    out.push(
      at(
        'suppression/unknown-code',
        `\`${code}\` is not a diagnostic code${isPolicyCode(code) ? ' or a policy of sessionctl.yaml' : ''}`,
        suggestion !== undefined ? `Did you mean \`${suggestion}\`?` : 'Codes are listed in docs/rules.md; policies are `policy/<id>` with an id from sessionctl.yaml.',
        range,
      ),
    );
  }
  if (directive.reason === undefined) {
    out.push(
      at(
        'suppression/missing-reason',
        `\`# ${word}\` gives no reason`,
        `Say why after a colon, for the reviewer: \`# ${word} ${directive.codes[0]?.code ?? 'CODE'}: why this is fine here\`.`,
      ),
    );
  }
  return out;
}
