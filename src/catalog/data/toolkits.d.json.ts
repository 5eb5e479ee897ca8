// The shape of toolkits.json as the catalogue reads it. Declared, so that tsc does not infer a
// literal type of the whole list, which would slow every type check.
import type { CatalogToolkit } from '../types.js';

declare const data: { toolkits: CatalogToolkit[] };
export = data;
