import type { Code } from '../diagnostics/codes.js';

export interface InterpolationProblem {
  code: Extract<Code, 'env/unset-variable' | 'env/bad-reference'>;
  message: string;
  hint?: string;
  /** The variable's name, when the reference named one. */
  variable?: string;
}

export interface Interpolated {
  /** The expanded text; references that failed are left as written. */
  value: string;
  problems: InterpolationProblem[];
  /** The names of the variables that were read, in order of first use. */
  variables: string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands environment references in one string value, the docker compose way:
 *
 * - `${VAR}` is the variable's value (an empty value is kept); unset is an `env/unset-variable`;
 * - `${VAR:-default}` is the default when VAR is unset or empty (the default is taken literally);
 * - `$${` is a literal `${`; any other `$` is literal;
 * - anything else after `${` (no closing brace, a bad name, another operator) is `env/bad-reference`.
 *
 * Only `${...}` is expanded, never `$VAR`, so prices and regexes with a bare `$` stay as written.
 */
export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>): Interpolated {
  if (!text.includes('${')) return { value: text, problems: [], variables: [] };
  const problems: InterpolationProblem[] = [];
  const variables: string[] = [];
  let out = '';
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar === -1) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, dollar);
    if (text.startsWith('$${', dollar)) {
      out += '${';
      i = dollar + 3;
      continue;
    }
    if (!text.startsWith('${', dollar)) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    const close = text.indexOf('}', dollar + 2);
    if (close === -1) {
      problems.push({
        code: 'env/bad-reference',
        message: `\`${excerpt(text.slice(dollar))}\` has no closing \`}\``,
        hint: 'write `${NAME}` or `${NAME:-default}`, or `$${` for a literal `${`',
      });
      out += text.slice(dollar);
      break;
    }
    const reference = text.slice(dollar, close + 1);
    const body = text.slice(dollar + 2, close);
    const op = body.indexOf(':-');
    const name = op === -1 ? body : body.slice(0, op);
    if (!NAME.test(name)) {
      problems.push({
        code: 'env/bad-reference',
        message: `\`${excerpt(reference)}\` is not a variable reference`,
        hint: 'names are letters, digits and `_`, not starting with a digit; the only operator is `:-`; write `$${` for a literal `${`',
      });
      out += reference;
      i = close + 1;
      continue;
    }
    if (!variables.includes(name)) variables.push(name);
    const value = env[name];
    if (op !== -1) {
      out += value === undefined || value === '' ? body.slice(op + 2) : value;
    } else if (value === undefined) {
      problems.push({
        code: 'env/unset-variable',
        message: `environment variable ${name} is not set`,
        hint: `set ${name}, pass --env-file, or give a default: \${${name}:-value}`,
        variable: name,
      });
      out += reference;
    } else {
      out += value;
    }
    i = close + 1;
  }
  return { value: out, problems, variables };
}

function excerpt(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
