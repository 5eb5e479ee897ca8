import { relative, resolve } from 'node:path';
import { DEFAULT_STATE_PATH } from '../state/file-store.js';
import { isPostgresUrl } from '../state/postgres-url.js';
import { shellWord } from '../util/shell-word.js';

/**
 * The command line that adopts a session the state could not record, to run where this run ran:
 * `sessionctl import NAME SESSION_ID FILE`, with `--state` when the state is not the default file.
 * Every word is quoted for a POSIX shell where it needs it, so that the line can be pasted as it is.
 */
export function importCommand(name: string, sessionId: string, file: string | undefined, stateLocation: string, cwd: string): string {
  const words = ['sessionctl', 'import', name, sessionId];
  if (file !== undefined) words.push(file);
  if (isPostgresUrl(stateLocation)) words.push('--state', withoutPassword(stateLocation));
  else if (stateLocation !== resolve(cwd, DEFAULT_STATE_PATH)) words.push('--state', relative(cwd, stateLocation));
  return words.map(shellWord).join(' ');
}

/** A state URL is read only without a password; this line must not be where one first shows. */
function withoutPassword(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}
