import { createTwoFilesPatch } from 'diff';
import type { ExpectedConfig } from './expected.js';
import { SERVICE_CHOSEN, type Effective } from './drift.js';
import { canonicalJson } from './request.js';
import { isPlainObject } from '../util/plain-object.js';
import { joinPointer } from '../util/json-pointer.js';

/** A text diff of two very different configs can take seconds (runtime-facts §4); give up after this. */
const DIFF_TIMEOUT_MS = 200;

/**
 * A unified diff of the expected against the effective session (config and meta tools), for people.
 * Both sides are shown with keys sorted and lists sorted (lists compare as sets), without what is
 * not a difference: defaults the service does not echo, empty blocks it adds, and fields it chooses
 * itself. Returns '' when the two agree, and a one-line note when the diff would take too long.
 */
export function unifiedConfigDiff(expected: ExpectedConfig, effective: Effective, labels: { expected: string; effective: string }): string {
  const exp = { config: pruneExpected(expected, '', expected.config as unknown, effective.config), tool_router_tools: [...expected.toolRouterTools] };
  const act = { config: pruneEffective(expected, '', effective.config), tool_router_tools: Array.isArray(effective.tool_router_tools) ? effective.tool_router_tools : [] };
  const a = render(exp);
  const b = render(act);
  if (a === b) return '';
  const patch = createTwoFilesPatch(labels.expected, labels.effective, a, b, undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS });
  if (patch === undefined) return `(the two configs are too different to diff line by line; see the findings above)\n`;
  // The first line is a separator of '=' that carries no information here.
  return patch.replace(/^=+\n/, '');
}

function render(value: unknown): string {
  return JSON.stringify(normalise(value), null, 2) + '\n';
}

/** Keys sorted, lists sorted by their canonical JSON. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise).sort((x, y) => (canonicalJson(x) < canonicalJson(y) ? -1 : canonicalJson(x) > canonicalJson(y) ? 1 : 0));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = normalise(value[k]);
    return out;
  }
  return value;
}

/** The expected side without defaults the service does not echo. */
function pruneExpected(expected: ExpectedConfig, at: string, exp: unknown, act: unknown): unknown {
  if (!isPlainObject(exp)) return exp;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(exp)) {
    const p = `${at}${joinPointer('', k)}`;
    const a = isPlainObject(act) ? act[k] : undefined;
    const origin = expected.origins.get(p);
    if (a === undefined && origin?.declared !== true && !isPlainObject(v)) continue;
    const pruned = pruneExpected(expected, p, v, a);
    if (isPlainObject(pruned) && Object.keys(pruned).length === 0 && a === undefined && origin?.declared !== true) continue;
    out[k] = pruned;
  }
  return out;
}

/** Fields the service chooses itself or fills with empty blocks are not shown unless declared. */
function pruneEffective(expected: ExpectedConfig, at: string, act: unknown): unknown {
  if (!isPlainObject(act)) return act;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(act)) {
    const p = `${at}${joinPointer('', k)}`;
    const known = expected.origins.has(p);
    if (!known && (SERVICE_CHOSEN.has(p) || isEmptyValue(v))) continue;
    out[k] = pruneEffective(expected, p, v);
  }
  return out;
}

function isEmptyValue(v: unknown): boolean {
  return v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** A unified diff of two configs as the service holds them (two versions of one session), keys and lists sorted. */
export function unifiedVersionsDiff(before: unknown, after: unknown, labels: { before: string; after: string }): string {
  const a = render(before);
  const b = render(after);
  if (a === b) return '';
  const patch = createTwoFilesPatch(labels.before, labels.after, a, b, undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS });
  if (patch === undefined) return `(the two configs are too different to diff line by line)\n`;
  return patch.replace(/^=+\n/, '');
}
