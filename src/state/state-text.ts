import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { InputError } from '../diagnostics/errors.js';

/**
 * The state file's text, or undefined when there is none. Opened without blocking and read only
 * when it is a regular file: a FIFO at the path (`--state <(cmd)`, a planted one) blocked every
 * command that reads the state until someone wrote to it; a folder or a device is refused by name.
 */
export async function readStateText(path: string): Promise<string | undefined> {
  const fail = (why: string, cause?: unknown): InputError => new InputError(`cannot read the state file: ${why}`, path, cause === undefined ? undefined : { cause });
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fail((err as Error).message, err);
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw fail('it is a folder');
    if (!st.isFile()) throw fail('it is not a regular file (a FIFO, a socket or a device); give --state a JSON file');
    return await handle.readFile('utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw fail((err as Error).message, err);
  } finally {
    await handle.close();
  }
}
