import type { Diagnostic, RelatedLocation } from '../diagnostics/diagnostic.js';
import type { AjvError, CleanupSource, SchemaFinding, Target } from './cleanup-types.js';
import { findingFor } from './ajv-findings.js';
import { asPlainObject } from '../util/plain-object.js';
import type { ScalarSource } from '../manifest/types.js';
import { replaceFix } from './rule.js';

export type { AjvError, CleanupSource, SchemaFinding } from './cleanup-types.js';

/**
 * Errors that a semantic rule reports better: the schema keeps the constraint (editors using the
 * schema see it), and the schema says so with a `$comment` naming the rule, so the CLI shows the
 * rule's single finding instead of ajv's generic one.
 */
function ownedByRule(err: AjvError): boolean {
  if (err.keyword !== 'not' && err.keyword !== 'minProperties' && err.keyword !== 'maxProperties') return false;
  const comment = err.keyword === 'not' ? asPlainObject(err.schema)?.['$comment'] : asPlainObject(err.parentSchema)?.['$comment'];
  return typeof comment === 'string' && comment.includes('rule/') && (err.keyword === 'not' || comment.includes(err.keyword));
}

/**
 * For `oneOf`/`anyOf` errors, keeps only the errors of the most useful branch and drops the rest
 * (spectral's lesson: "must match exactly one schema" plus every branch's complaints is noise).
 * The most useful branch is one where the value at least has the right type; among those, the
 * one with the fewest errors. When every branch fails on type, one `schema/variant` remains.
 */
function reduceVariants(errors: AjvError[]): AjvError[] {
  const dropped = new Set<AjvError>();
  for (const variant of errors) {
    if (variant.keyword !== 'oneOf' && variant.keyword !== 'anyOf') continue;
    const prefix = `${variant.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const err of errors) {
      if (err === variant || !err.schemaPath.startsWith(prefix) || !err.instancePath.startsWith(variant.instancePath)) continue;
      const branch = err.schemaPath.slice(prefix.length).split('/')[0]!;
      const list = branches.get(branch) ?? [];
      list.push(err);
      branches.set(branch, list);
    }
    if (branches.size === 0) continue;
    const typed = [...branches.values()].filter((list) => !list.some((e) => e.keyword === 'type' && e.instancePath === variant.instancePath));
    typed.sort((a, b) => a.length - b.length);
    const keep = typed[0];
    for (const list of branches.values()) if (list !== keep) for (const e of list) dropped.add(e);
    // With a useful branch its errors say more than "must match a schema"; without one, the
    // variant error itself stays as the single finding.
    if (keep !== undefined) dropped.add(variant);
  }
  return errors.filter((e) => !dropped.has(e));
}

/**
 * Errors raised inside a `propertyNames` subschema that ajv compiled as a separate function (a
 * `$ref`) do not carry `propertyName`; only the `propertyNames` error right after them does. Give
 * them the key, so each points at the key it is about.
 */
function attachPropertyNames(errors: readonly AjvError[]): AjvError[] {
  const out = errors.map((e) => ({ ...e }));
  for (let i = 0; i < out.length; i++) {
    const outer = out[i]!;
    if (outer.keyword !== 'propertyNames') continue;
    const key = outer.params['propertyName'];
    if (typeof key !== 'string') continue;
    for (let j = i - 1; j >= 0; j--) {
      const inner = out[j]!;
      if (inner.instancePath !== outer.instancePath || inner.propertyName !== undefined || inner.keyword === 'propertyNames') break;
      if (!inner.schemaPath.includes('propertyNames') && !inner.schemaPath.startsWith('#/definitions/')) break;
      inner.propertyName = key;
    }
  }
  return out;
}

function targetKey(t: Target): string {
  return `${t.key ? 'k' : 'v'}${t.pointer}`;
}

/**
 * Turns raw ajv errors into one finding per problem, at the key or value it concerns. Errors at
 * the same place are collapsed: a type error explains everything else at that value, and one
 * finding per key is enough.
 */
export function cleanErrors(errors: readonly AjvError[], src: CleanupSource): SchemaFinding[] {
  const relevant = reduceVariants(attachPropertyNames(errors).filter((e) => e.keyword !== 'if' && e.keyword !== 'then' && e.keyword !== 'else' && !ownedByRule(e)));
  const typeAt = new Set(relevant.filter((e) => e.keyword === 'type' && e.propertyName === undefined).map((e) => e.instancePath));
  const seen = new Map<string, SchemaFinding>();
  for (const err of relevant) {
    if (err.keyword !== 'type' && err.propertyName === undefined && typeAt.has(err.instancePath) && err.keyword !== 'required') continue;
    const finding = findingFor(err, src);
    if (finding === undefined) continue;
    // `required` may name several keys at one place: keep each.
    const id = finding.code === 'schema/required' ? `${targetKey(finding.target)}\0${finding.message}` : targetKey(finding.target);
    const previous = seen.get(id);
    // A forbidden key is the more useful message than "unknown key" for the same key.
    if (previous === undefined || (finding.code === 'schema/forbidden-key' && previous.code !== 'schema/forbidden-key')) seen.set(id, finding);
  }
  return [...seen.values()];
}

/** Resolves a finding's targets to a located diagnostic of one document. */
export function locateFinding(
  finding: SchemaFinding,
  doc: { file: string; locate(pointer: string, options?: { key?: boolean }): Diagnostic['range']; scalar?: (pointer: string) => ScalarSource | undefined },
  severity: Diagnostic['severity'],
): Diagnostic {
  const d: Diagnostic = {
    code: finding.code,
    severity,
    message: finding.message,
    file: doc.file,
    pointer: finding.target.pointer,
    range: doc.locate(finding.target.pointer, { key: finding.target.key })!,
  };
  if (finding.target.point === true && d.range !== undefined) d.range = { start: d.range.start, end: d.range.start };
  if (finding.hint !== undefined) d.hint = finding.hint;
  if (finding.replacement !== undefined && d.range !== undefined) d.fix = replaceFix(doc, finding.target.pointer, finding.target.key, finding.replacement);
  if (finding.related !== undefined) {
    const related: RelatedLocation = { message: finding.related.message, file: doc.file };
    const range = doc.locate(finding.related.pointer, { key: finding.related.key });
    if (range !== undefined) related.range = range;
    d.related = [related];
  }
  return d;
}
