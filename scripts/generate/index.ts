/**
 * Every generated file of the repository, from its committed source: the one list that
 * `npm run generate` writes and `npm run generate -- --check` (and the test suite) compares.
 * Generators live here, outside `src/`, so that none of them ships in the package.
 */
import { generateConfigValidatorModule } from './config-validator.js';
import { renderOperationsModule, renderValidatorsModule } from './emulator-contract.js';
import { manifestMarkdown, type SchemaNode } from './manifest-md.js';
import { generateValidatorModule } from './manifest-validator.js';
import { policiesMarkdown } from './policies-md.js';
import { rulesMarkdown } from './rules-md.js';

/** Reads a committed file by its path from the repository's root. */
export type ReadSource = (path: string) => string;

const CONTRACT = 'contract/tool-router-v3.openapi.json';
const CONTRACT_V31 = 'contract/tool-router-v3.1.openapi.json';
const MANIFEST_SCHEMA = 'schemas/session-manifest.schema.json';
const CONFIG_SCHEMA = 'schemas/sessionctl-config.schema.json';

/** Each generated file's path (from the repository's root) and its expected text. */
export function generatedFiles(read: ReadSource): Record<string, string> {
  const schemaText = read(MANIFEST_SCHEMA);
  const contracts = { v3: { doc: JSON.parse(read(CONTRACT)) as unknown, name: CONTRACT }, v31: { doc: JSON.parse(read(CONTRACT_V31)) as unknown, name: CONTRACT_V31 } };
  return {
    'src/validate/generated/manifest-validator.ts': generateValidatorModule(schemaText),
    'src/project/generated/config-validator.ts': generateConfigValidatorModule(read(CONFIG_SCHEMA)),
    'src/emulator/contract/operations.generated.ts': renderOperationsModule(contracts),
    'src/emulator/contract/validators.generated.ts': renderValidatorsModule(contracts),
    'docs/manifest.md': manifestMarkdown(JSON.parse(schemaText) as SchemaNode),
    'docs/rules.md': rulesMarkdown(),
    // Its hand-written prose is its own source: only the marked sections are generated.
    'docs/policies.md': policiesMarkdown(read('docs/policies.md'), JSON.parse(read(CONFIG_SCHEMA)) as SchemaNode),
  };
}

/**
 * The generated files whose committed text differs from what their sources generate now (a
 * missing file counts as differing), with the expected texts, for `--check` and for writing.
 */
export function staleFiles(read: ReadSource, readGenerated: (path: string) => string | undefined): Array<{ path: string; text: string }> {
  return Object.entries(generatedFiles(read))
    .filter(([path, text]) => readGenerated(path) !== text)
    .map(([path, text]) => ({ path, text }));
}
