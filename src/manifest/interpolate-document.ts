import { isDocument, isMap, isPair, isSeq, visit, type Document } from 'yaml';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { interpolate, type InterpolationProblem } from './interpolate.js';
import type { UnsetVariables } from './types.js';
import { sensitivityOf, type SensitiveScalar } from './sensitive.js';
import { keyString, nodeRange, type SourceText } from './source.js';
import { escapeSegment } from '../util/json-pointer.js';

/**
 * Expands `${VAR}` in every string value (never in keys), in place, before the document becomes
 * data, so each problem is located at its scalar. Aliased scalars are expanded once, at the anchor.
 * Returns the findings and the expanded values that are sensitive (see `sensitive.ts`).
 */
export function interpolateDocument(
  doc: Document,
  source: SourceText,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  budget: { remaining: number },
  declared: ReadonlySet<string> = new Set(),
  unset: UnsetVariables = 'error',
): { diagnostics: Diagnostic[]; sensitive: SensitiveScalar[] } {
  const out: Diagnostic[] = [];
  const sensitive: SensitiveScalar[] = [];
  visit(doc, {
    Scalar(key, node, path) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return;
      // Past the document's budget one finding has said so; the rest stays as written.
      if (budget.remaining === 0) return;
      const result = interpolate(node.value, env, { budget });
      node.value = result.value;
      const found = sensitivityOf(result, declared);
      if (found !== undefined) sensitive.push(found);
      // One env/too-large per document: the values after it would cost time for the same finding.
      if (result.problems.some((p) => p.code === 'env/too-large')) budget.remaining = 0;
      for (const problem of result.problems) {
        // An env/ finding masks the others at its place (check-loaded), so a placeholder's value goes unjudged.
        const p = unset === 'placeholder' && problem.code === 'env/unset-variable' ? placeholder(problem) : problem;
        const d: Diagnostic = {
          code: p.code,
          severity: p.code === 'env/placeholder' ? 'info' : 'error',
          message: p.message,
          file,
          pointer: pointerOf(path, node),
          range: nodeRange(source, node) ?? source.range(doc.range?.[0] ?? 0),
        };
        if (p.hint !== undefined) d.hint = p.hint;
        out.push(d);
      }
    },
  });
  return { diagnostics: out, sensitive };
}

function placeholder(p: InterpolationProblem): Omit<InterpolationProblem, 'code'> & { code: 'env/placeholder' } {
  const name = p.variable ?? 'a variable';
  return {
    code: 'env/placeholder',
    message: `\${${name}} is not set: a placeholder, so the checks of this value are skipped (--unset-variables placeholder)`,
    hint: `the run that deploys sets ${name} and validates this value in full`,
  };
}

/** The JSON pointer of a node from yaml's visitor path (document, collections and pairs). */
function pointerOf(path: readonly unknown[], node: unknown): string {
  const segments: string[] = [];
  const chain = [...path, node];
  for (let i = 0; i < chain.length - 1; i++) {
    const here = chain[i];
    const next = chain[i + 1];
    if (isDocument(here)) continue;
    if (isPair(here)) segments.push(escapeSegment(keyString(here.key)));
    else if (isSeq(here)) segments.push(String(here.items.indexOf(next as never)));
    else if (isMap(here)) continue;
  }
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}
