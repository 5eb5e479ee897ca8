// The shape of tools.json as the catalogue reads it. Declared, so that tsc does not infer a literal
// type of the whole list, which would triple the time of every type check.
import type { CatalogTool } from '../types.js';

declare const data: { tools: CatalogTool[] };
export = data;
