/** The emulator's public entry: start one in-process (tests, applications' own test suites). */
export { startEmulator, type EmulatorOptions, type RunningEmulator } from './server.js';
export { Catalog, builtInCatalog, catalogFromJson } from '../catalog/catalog.js';
export type { CatalogData, CatalogTool, CatalogToolkit } from '../catalog/types.js';
export { effectiveConfig, metaToolsFor, META_TOOLS, type EffectiveConfig } from './effective.js';
export { ROUTE_NAMES, type FaultInput, type RouteName } from './faults.js';
