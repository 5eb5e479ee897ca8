import type { YAMLError } from 'yaml';

/** The core schema's own types: a tag naming one of them is known, but can still not fit its value. */
const CORE_TYPES = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq']);

const hint = 'remove the tag; manifests use plain YAML values only';

/**
 * TAG_RESOLVE_FAILED and BAD_COLLECTION_TYPE in our words. yaml's own words name the tag as it
 * resolved it (`Unresolved tag: tag:yaml.org,2002:binary`), or are its internals: a verbatim tag
 * named like a property of every object (`!<constructor>`, `!<toString>`) is looked up on a plain
 * object and found, so yaml calls `tag.resolve is not a function`. Whatever yaml says, the tag is
 * one manifests do not take: the message quotes it as written (yaml points at the tag).
 */
export function tagWords(error: YAMLError, text: string): { message: string; hint: string } {
  const tag = `the tag \`${text.slice(error.pos[0], error.pos[1])}\``;
  const core = /^Unresolved tag: tag:yaml\.org,2002:(\w+)$/.exec(error.message);
  if (core !== null && CORE_TYPES.has(core[1]!)) {
    return { message: `${tag} does not fit the value it is on`, hint };
  }
  return { message: `${tag} is not one manifests use`, hint };
}
