import { readFileSync } from 'node:fs';

/** The package version, read once from package.json beside `src/` or `dist/`. */
export const version: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The package's folder (beside `src/` or `dist/`): its `docs/` and `schemas/` ship with it. */
export const packageRoot: URL = new URL('../', import.meta.url);
