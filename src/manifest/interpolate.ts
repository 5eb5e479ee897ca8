import type { Code } from '../diagnostics/codes.js';

export interface InterpolationProblem {
  code: Extract<Code, 'env/unset-variable' | 'env/bad-reference' | 'env/too-large'>;
  message: string;
  hint?: string;
  /** The variable's name, when the reference named one. */
  variable?: string;
}

export interface Interpolated {
  /** The expanded text; references that failed are left as written (all of it, past a size limit). */
  value: string;
  problems: InterpolationProblem[];
  /** The names of the variables that were read, in order of first use. */
  variables: string[];
  /** The variables whose values went into `value` (not those that fell back to a default), with those values. */
  used: Array<{ name: string; value: string }>;
}

/** Bounds on what expansion may produce: values are data, and a `${X}` repeated must not fill the memory. */
export interface InterpolationLimits {
  /** The longest expanded value, in UTF-16 code units. Default `MAX_EXPANDED_VALUE`. */
  maxLength?: number;
  /**
   * A budget shared by the values of one document: each expanded value spends its length. When
   * it runs out the value is left as written and `env/too-large` says so.
   */
  budget?: { remaining: number };
}

/** 64 Ki characters: the schema's longest string (a custom tool's description) is 5,120. */
export const MAX_EXPANDED_VALUE = 64 * 1024;
/** `${A:-${B:-${C}}}` may nest this deep. */
const MAX_NESTING = 8;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

class TooLarge extends Error {}

/**
 * Expands environment references in one string value, the docker compose way:
 *
 * - `${VAR}` is the variable's value (an empty value is kept); unset is an `env/unset-variable`;
 * - `${VAR:-default}` is the default when VAR is unset or empty; the default is expanded in turn,
 *   so it may hold references itself (`${REGION:-${DEFAULT_REGION}}`), up to 8 levels deep;
 * - `$${` is a literal `${`; any other `$` is literal;
 * - anything else after `${` (no closing brace, a bad name, another operator) is `env/bad-reference`;
 * - a result longer than `limits.maxLength`, or past the document's budget, is `env/too-large`,
 *   and the value is left as written. Sizes are checked before any text is joined, so a huge
 *   expansion costs no memory.
 *
 * Only `${...}` is expanded, never `$VAR`, so prices and regexes with a bare `$` stay as written.
 */
export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>, limits: InterpolationLimits = {}): Interpolated {
  if (!text.includes('${')) return { value: text, problems: [], variables: [], used: [] };
  const state: State = { env, problems: [], variables: new Set(), used: new Map(), maxLength: limits.maxLength ?? MAX_EXPANDED_VALUE };
  let value: string;
  try {
    value = expand(text, state, 0);
  } catch (err) {
    if (!(err instanceof TooLarge)) throw err;
    return { value: text, problems: [tooLarge(`expanding its \${...} makes this value longer than ${state.maxLength.toLocaleString('en')} characters`)], variables: [...state.variables], used: [] };
  }
  if (limits.budget !== undefined) {
    if (value.length > limits.budget.remaining) {
      limits.budget.remaining = 0;
      return { value: text, problems: [tooLarge('expanding ${...} makes this document larger than the file size limit')], variables: [...state.variables], used: [] };
    }
    limits.budget.remaining -= value.length;
  }
  return { value, problems: state.problems, variables: [...state.variables], used: [...state.used].map(([name, v]) => ({ name, value: v })) };
}

interface State {
  env: Readonly<Record<string, string | undefined>>;
  problems: InterpolationProblem[];
  variables: Set<string>;
  used: Map<string, string>;
  maxLength: number;
}

function tooLarge(message: string): InterpolationProblem {
  return { code: 'env/too-large', message, hint: 'a manifest value holds an id, a slug or a short text; check what the variable holds' };
}

function expand(text: string, state: State, depth: number): string {
  let out = '';
  const append = (piece: string): void => {
    if (out.length + piece.length > state.maxLength) throw new TooLarge();
    out += piece;
  };
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar === -1) {
      append(text.slice(i));
      break;
    }
    append(text.slice(i, dollar));
    if (text.startsWith('$${', dollar)) {
      append('${');
      i = dollar + 3;
      continue;
    }
    if (!text.startsWith('${', dollar)) {
      append('$');
      i = dollar + 1;
      continue;
    }
    const close = closingBrace(text, dollar + 2);
    if (close === -1) {
      state.problems.push({
        code: 'env/bad-reference',
        message: `\`${excerpt(text.slice(dollar))}\` has no closing \`}\``,
        hint: 'write `${NAME}` or `${NAME:-default}`, or `$${` for a literal `${`',
      });
      append(text.slice(dollar));
      break;
    }
    const reference = text.slice(dollar, close + 1);
    append(resolveReference(reference, state, depth));
    i = close + 1;
  }
  return out;
}

/** One `${...}`: its value, or the reference as written when it cannot be expanded (with a problem). */
function resolveReference(reference: string, state: State, depth: number): string {
  const body = reference.slice(2, -1);
  const op = body.indexOf(':-');
  const name = op === -1 ? body : body.slice(0, op);
  if (!NAME.test(name)) {
    state.problems.push({
      code: 'env/bad-reference',
      message: `\`${excerpt(reference)}\` is not a variable reference`,
      hint: 'names are letters, digits and `_`, not starting with a digit; the only operator is `:-`; write `$${` for a literal `${`',
    });
    return reference;
  }
  state.variables.add(name);
  const value = state.env[name];
  if (op !== -1) {
    if (value !== undefined && value !== '') {
      state.used.set(name, value);
      return value;
    }
    const fallback = body.slice(op + 2);
    if (!fallback.includes('${')) return fallback;
    if (depth + 1 >= MAX_NESTING) {
      state.problems.push({ code: 'env/bad-reference', message: `\`${excerpt(reference)}\` nests defaults more than ${MAX_NESTING} levels deep`, hint: 'write the value out' });
      return reference;
    }
    return expand(fallback, state, depth + 1);
  }
  if (value === undefined) {
    state.problems.push({
      code: 'env/unset-variable',
      message: `environment variable ${name} is not set`,
      hint: `set ${name}, pass --env-file, or give a default: \${${name}:-value}`,
      variable: name,
    });
    return reference;
  }
  state.used.set(name, value);
  return value;
}

/** The `}` that closes the `${` whose body starts at `from`, counting nested `${`; -1 when none. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x24 /* $ */ && text.charCodeAt(i + 1) === 0x7b /* { */) {
      depth++;
      i++;
    } else if (c === 0x7d /* } */ && --depth === 0) return i;
  }
  return -1;
}

function excerpt(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
