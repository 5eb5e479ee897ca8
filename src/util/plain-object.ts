/**
 * A JSON mapping (an object that is neither null nor an array): what YAML calls a mapping and a
 * JSON schema an object. Data read here may have failed the schema, so each reader checks first.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a mapping, else undefined: for chains such as `asPlainObject(data)?.['tools']`. */
export function asPlainObject(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}
