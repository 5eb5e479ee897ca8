import { UsageError } from '../diagnostics/errors.js';
import { didYouMean } from '../validate/did-you-mean.js';

/** The URL schemes a state location may have; anything else with a scheme is a slip, not a file name. */
const SCHEMES = ['postgres', 'postgresql'] as const;

/**
 * `word:` at the start, two characters or more: a Windows drive (`C:\state.json`) is one letter, so
 * it stays a path. A file name that really starts so can be written `./name:...`.
 */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):/;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Refuses a `--state` value (or SESSIONCTL_STATE, or the project's `state`) that would otherwise
 * be taken for a file path although nobody meant one: `postgress://...`, `pg://...`,
 * `postgres:/host` (one slash), or a URL with a space or a newline around it. Taken as a path, each
 * of them was a new, empty state: apply created every session again, and left a folder named
 * `postgress:` in the repository. The value is never echoed whole: a URL can carry a password.
 */
export function checkStateLocation(spec: string): void {
  if (spec === '') throw new UsageError('the state location is empty', 'give --state a file path or a postgres:// URL, or unset SESSIONCTL_STATE');
  if (spec.trim() !== spec) {
    throw new UsageError('the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)', 'remove them: sessionctl takes the location exactly as given');
  }
  if (CONTROL.test(spec)) throw new UsageError('the state location holds a control character (a tab, a line break, an escape)', 'write the path or URL without it');
  const scheme = SCHEME.exec(spec)?.[1];
  if (scheme === undefined) return;
  const known = (SCHEMES as readonly string[]).includes(scheme.toLowerCase());
  if (known && spec.slice(scheme.length).startsWith('://')) return;
  const shown = `${scheme}:`;
  if (known) throw new UsageError(`the state location starts with "${shown}" but not "${shown}//"`, `write it as ${scheme}://USER@HOST:5432/DATABASE?workspace=NAME`);
  const near = didYouMean(scheme, [...SCHEMES, 'pg', 'psql']) !== undefined;
  throw new UsageError(
    `the state location has the scheme "${shown}", which sessionctl does not read; it is neither a postgres:// URL nor a file path`,
    near ? 'did you mean postgres://? (a file path has no scheme; write ./NAME for a file whose name has a colon)' : 'give a postgres:// URL, or a file path (./NAME for a file whose name has a colon)',
  );
}
