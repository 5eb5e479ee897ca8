import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** The line a finding's mistake is about, where yaml reports one mistake on several lines. */
const mistakeLines = new WeakMap<Diagnostic, number>();

/** Marks a finding as one of several yaml makes of the mistake on `line` (block text, a key beside a list). */
export function mistakeAbout(diagnostic: Diagnostic, line: number): void {
  mistakeLines.set(diagnostic, line);
}

/**
 * One mistake, one finding. yaml often reports one indentation mistake two or three times (a
 * `BLOCK_AS_IMPLICIT_KEY` and a `MULTILINE_IMPLICIT_KEY` at the same place, a `MISSING_CHAR`
 * beside them), which our words explain alike: of the syntax findings that start on one line
 * with the same explanation and hint, the one that covers most of the source is kept. A key that
 * is "not a plain string" on a line with a syntax finding is that mistake read further (a
 * misplaced `- item` taken as a key), and goes too. A mistake that yaml trips over on several
 * lines (block text not indented, keys beside a list: `mistakeAbout`) is one finding, at the first
 * place it reports.
 */
export function oneFindingPerMistake(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const syntaxLines = new Set(diagnostics.filter((d) => d.code === 'yaml/syntax').map((d) => d.range?.start.line));
  // Inside brackets a key run over lines is a missing comma, which the block-in-flow finding at
  // the same place explains; the run-over key's words (indent it like the key above) would mislead.
  const inFlow = new Set(diagnostics.filter((d) => yamlCode(d) === 'BLOCK_IN_FLOW').map(startOf));
  const kept = new Map<string, Diagnostic>();
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const line = d.range?.start.line;
    if (d.code === 'yaml/non-string-key' && syntaxLines.has(line)) continue;
    if (yamlCode(d) === 'MULTILINE_IMPLICIT_KEY' && inFlow.has(startOf(d))) continue;
    if (d.code !== 'yaml/syntax' || d.range === undefined) {
      out.push(d);
      continue;
    }
    const key = JSON.stringify([mistakeLines.get(d) ?? line, d.message.replace(/ \(yaml [A-Z0-9_]+\)$/, ''), d.hint]);
    const first = kept.get(key);
    if (first === undefined) {
      kept.set(key, d);
      out.push(d);
    } else if (mistakeLines.has(d) ? startsBefore(d, first) : widerOrEarlier(d, first)) {
      out[out.indexOf(first)] = d;
      kept.set(key, d);
    }
  }
  return out;
}

/**
 * Whether `a` covers more of the source than `b` (more lines, else more columns), or as much and
 * starts first. Both start on one line: findings are only compared with those on their own line.
 */
function widerOrEarlier(a: Diagnostic, b: Diagnostic): boolean {
  const [ar, br] = [a.range!, b.range!];
  const lines = ar.end.line - br.end.line;
  const cols = ar.end.col - ar.start.col - (br.end.col - br.start.col);
  return (lines || cols || br.start.col - ar.start.col) > 0;
}

/** Whether `a` starts before `b`: of one mistake that yaml reports on several lines, the first place is kept. */
function startsBefore(a: Diagnostic, b: Diagnostic): boolean {
  const [as, bs] = [a.range!.start, b.range!.start];
  return as.line < bs.line || (as.line === bs.line && as.col < bs.col);
}

/** The yaml error code a finding was worded from (`(yaml CODE)` at the end of its message). */
function yamlCode(d: Diagnostic): string | undefined {
  return / \(yaml ([A-Z0-9_]+)\)$/.exec(d.message)?.[1];
}

function startOf(d: Diagnostic): string {
  return `${d.range?.start.line}:${d.range?.start.col}`;
}
