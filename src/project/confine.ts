import { dirname, resolve } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { excerpt } from '../diagnostics/excerpt.js';
import { hasGlobMagic, splitGlob } from '../manifest/glob.js';
import type { ManifestDocument } from '../manifest/types.js';
import { outsideOf } from '../util/confine.js';
import { joinPointer } from '../util/json-pointer.js';
import { asPlainObject } from '../util/plain-object.js';

/** A state that is not a file: a URL (checked for its scheme by `configChecks`), or what the state's own check refuses. */
const NOT_A_PATH = /^[a-z][a-z0-9+.-]+:|^\s|\s$|[\u0000-\u001f\u007f]/i;

/** Every path the file names, with its place: what a run reads (paths, env files, catalogue) and writes (state, report files). */
function namedPaths(data: Record<string, unknown> | undefined): Array<{ pointer: string; path: string; what: string }> {
  const out: Array<{ pointer: string; path: string; what: string }> = [];
  const list = (key: string, what: string, map: (s: string) => string | undefined = (s) => s): void => {
    const value = data?.[key];
    if (!Array.isArray(value)) return;
    value.forEach((v, i) => {
      const path = typeof v === 'string' ? map(v) : undefined;
      if (path !== undefined && path !== '') out.push({ pointer: joinPointer(`/${key}`, i), path, what });
    });
  };
  // A glob is searched from its base; what the walk meets below it is confined by the walk.
  list('paths', 'manifest path', (p) => (hasGlobMagic(p) ? splitGlob(p).base || '.' : p));
  list('env_files', 'env file');
  list('formats', 'report file', (f) => {
    const eq = f.indexOf('=');
    return eq === -1 || f.slice(eq + 1) === '-' ? undefined : f.slice(eq + 1);
  });
  for (const [key, what] of [['catalog', 'catalogue'], ['state', 'state file']] as const) {
    const value = data?.[key];
    if (typeof value === 'string' && value !== '' && !(key === 'state' && NOT_A_PATH.test(value))) out.push({ pointer: `/${key}`, path: value, what });
  }
  return out;
}

/**
 * A `config/outside-repository` finding for each path `sessionctl.yaml` names that leads out of
 * the checkout it belongs to (`root`): `..`, an absolute path, or a symbolic link on the way.
 * The file is committed, so a pull request can change it: without this, a report file could
 * overwrite a script elsewhere, a state or catalogue be read from anywhere, and a linked file's
 * lines reach the CI log. Paths given on the command line are the user's choice and are not
 * checked.
 */
export function confinementFindings(doc: ManifestDocument, root: string): Diagnostic[] {
  const dir = dirname(doc.file);
  return namedPaths(asPlainObject(doc.data)).flatMap(({ pointer, path, what }) => {
    const why = outsideOf(root, resolve(dir, path));
    if (why === undefined) return [];
    return [
      {
        code: 'config/outside-repository',
        severity: 'error',
        message: `the ${what} \`${excerpt(path)}\` is refused: ${why.replace('the folder', 'the repository')}`,
        hint: 'Name a path inside the repository, relative to sessionctl.yaml. A file elsewhere can still be given on the command line (--format NAME=FILE, --state, --catalog, --env-file): that is your choice, not the checkout\'s.',
        file: doc.file,
        pointer,
        range: doc.locate(pointer),
      } satisfies Diagnostic,
    ];
  });
}
