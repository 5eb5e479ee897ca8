import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { KEYWORDS } from './catalog-slugs.js';
import { didYouMean } from './did-you-mean.js';
import { runOnHint } from './run-on-hint.js';
import { dottedPath, valueAt } from './pointer.js';
import { joinPointer, splitPointer } from '../util/json-pointer.js';
import { manifestSchema } from './schema.js';
import { asPlainObject } from '../util/plain-object.js';

type SchemaObject = Record<string, unknown>;

/** Findings about a value's text, which a value run on from the next lines explains. */
const RUN_ON_CODES = new Set(['schema/pattern', 'schema/enum', 'schema/format', 'schema/limit']);

/** A schema with local `$ref`s followed and `allOf` branches merged (enough to list keys). */
function resolved(schema: SchemaObject | undefined): SchemaObject | undefined {
  let current = schema;
  const root = manifestSchema() as SchemaObject;
  for (let hops = 0; current !== undefined && typeof current['$ref'] === 'string' && hops < 8; hops++) {
    let target: unknown = root;
    for (const seg of (current['$ref'] as string).replace(/^#\//, '').split('/')) target = asPlainObject(target)?.[seg];
    current = asPlainObject(target);
  }
  const allOf = current?.['allOf'];
  if (Array.isArray(allOf)) return allOf.map((s) => resolved(asPlainObject(s))).reduce<SchemaObject>((acc, s) => ({ ...acc, ...s }), { ...current });
  return current;
}

/** The manifest schema of the value at a pointer, or undefined where the schema has none. */
function schemaAt(pointer: string): SchemaObject | undefined {
  let schema = resolved(manifestSchema() as SchemaObject);
  for (const seg of splitPointer(pointer)) {
    const props = asPlainObject(schema?.['properties']);
    schema = resolved(props !== undefined && Object.hasOwn(props, seg) ? asPlainObject(props[seg]) : (asPlainObject(schema?.['additionalProperties']) ?? asPlainObject(schema?.['items'])));
    if (schema === undefined) return undefined;
  }
  return schema;
}

/** Whether a key may stand inside the value at `pointer` (a property, or any key of a map). */
function acceptsKey(pointer: string, key: string): boolean {
  const schema = schemaAt(pointer);
  const props = asPlainObject(schema?.['properties']);
  return (props !== undefined && Object.hasOwn(props, key)) || asPlainObject(schema?.['additionalProperties']) !== undefined;
}

/** Each mapping's keys and their places, listed once: a document can have 30,000 unknown keys. */
const keyPlaces = new WeakMap<object, { keys: string[]; place: Map<string, number> }>();

/** The key written just before (`step` -1) or after (+1) `key` in the mapping at `parentPointer`. */
function neighbour(doc: ManifestDocument, parentPointer: string, key: string, step: -1 | 1): string | undefined {
  const map = asPlainObject(valueAt(doc.data, parentPointer));
  if (map === undefined) return undefined;
  let places = keyPlaces.get(map);
  if (places === undefined) {
    const keys = Object.keys(map);
    places = { keys, place: new Map(keys.map((k, i) => [k, i])) };
    keyPlaces.set(map, places);
  }
  const at = places.place.get(key);
  return at === undefined ? undefined : places.keys[at + step];
}

/**
 * A key that was probably meant one level deeper: the key written just before it in the same
 * mapping has an empty value, and would take this key. That is what an indentation slip looks
 * like once parsed (`github:` empty, then `enable:` at the same column instead of under it).
 */
function underEmptySibling(doc: ManifestDocument, pointer: string): string | undefined {
  const segments = splitPointer(pointer);
  const key = segments.pop();
  if (key === undefined) return undefined;
  const parentPointer = pointer.slice(0, pointer.lastIndexOf('/'));
  const previous = neighbour(doc, parentPointer, key, -1);
  if (previous === undefined) return undefined;
  const siblingPointer = joinPointer(parentPointer, previous);
  if (valueAt(doc.data, siblingPointer) !== null) return undefined;
  if (!acceptsKey(siblingPointer, key)) return undefined;
  const line = doc.locate(siblingPointer, { key: true }).start;
  return `\`${key}\` is at the same indentation as \`${dottedPath(siblingPointer)}\` (line ${line.line}), whose value is empty: indent \`${key}\` under \`${previous}\`.`;
}

/** The other side of `underEmptySibling`: an empty key followed by a key that belongs under it. */
function emptyBeforeChild(doc: ManifestDocument, pointer: string): string | undefined {
  const key = splitPointer(pointer).pop()!;
  const parentPointer = pointer.slice(0, pointer.lastIndexOf('/'));
  const next = neighbour(doc, parentPointer, key, 1);
  if (next === undefined || !acceptsKey(pointer, next)) return undefined;
  return `\`${key}\` has no value, and \`${next}\` after it is at the same indentation: indent \`${next}\` under \`${key}\`.`;
}

/** Tool slugs are upper case (`GITHUB_GET_A_REPOSITORY`); toolkit slugs are lower case. */
function looksLikeTools(value: unknown): boolean | undefined {
  const items = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  if (items.length === 0) return undefined;
  return items.every((s) => /[A-Z]/.test(s) && s.includes('_'));
}

/** What a keyword under a toolkit-keyed section (`tools.enable`) was most likely meant to be. */
function keywordIntent(doc: ManifestDocument, section: string, key: string): string {
  const value = valueAt(doc.data, `/${section}/${key}`);
  if (section !== 'tools') {
    return `\`${section}\` maps a toolkit slug to an id (\`${section === 'auth_configs' ? 'gmail: ac_...' : 'gmail: ca_...'}\`); to choose toolkits, write \`toolkits: {${key === 'tags' ? 'enable' : key}: [...]}\`.`;
  }
  if (key === 'tags') return 'For a tag filter over every toolkit, use the top-level `tags`; for one toolkit, `tools.<toolkit>.tags`.';
  const tools = looksLikeTools(value);
  if (tools === true) {
    const prefixes = [...new Set((value as string[]).map((s) => s.split('_')[0]!.toLowerCase()))];
    const example = prefixes.length === 1 ? prefixes[0]! : '<toolkit>';
    return `To choose tools, list them under their toolkit: \`tools: {${example}: {${key}: [...]}}\`; to choose toolkits, \`toolkits: {${key}: [...]}\`.`;
  }
  return `To choose toolkits, write \`toolkits: {${key}: [...]}\`; \`tools\` holds tool filters per toolkit (\`tools: {github: {${key}: [...]}}\`).`;
}

/**
 * The likely intent behind a key in the wrong place, as a hint, or undefined: an indentation
 * slip (the key belongs under the empty key before it), a keyword under a toolkit-keyed section
 * (`tools.enable`), a toolkit under `toolkits`, a tag under `tags`, a switch written as a bare
 * boolean (`workbench: false`).
 */
export function intentHint(doc: ManifestDocument, d: Pick<Diagnostic, 'code' | 'pointer'>): string | undefined {
  const pointer = d.pointer;
  if (pointer === undefined || pointer === '') return undefined;
  const segments = splitPointer(pointer);
  if (d.code === 'schema/type' && valueAt(doc.data, pointer) === null) return emptyBeforeChild(doc, pointer);
  if (d.code === 'schema/type' && segments.length === 1 && typeof valueAt(doc.data, pointer) === 'boolean') {
    const key = segments[0]!;
    if (acceptsKey(pointer, 'enable')) return `Write \`${key}: {enable: ${String(valueAt(doc.data, pointer))}}\`: \`${key}\` is a section of settings.`;
    return undefined;
  }
  if (RUN_ON_CODES.has(d.code)) return runOnHint(doc, pointer);
  if (d.code !== 'schema/unknown-key' && d.code !== 'rule/misplaced-key') return undefined;
  const indentation = underEmptySibling(doc, pointer);
  if (indentation !== undefined) return indentation;
  const [section, key] = segments;
  if (segments.length === 2 && (section === 'tools' || section === 'auth_configs' || section === 'connected_accounts') && KEYWORDS.has(key!)) return keywordIntent(doc, section, key!);
  // `enabled` or `disabel` is a slip of the keyword, which the schema's did-you-mean already names.
  if (segments.length === 2 && section === 'toolkits' && didYouMean(key!, ['enable', 'disable']) !== undefined) return undefined;
  if (segments.length === 2 && section === 'toolkits') return `\`toolkits\` takes only \`enable\` or \`disable\` lists of toolkit slugs; to choose the tools of \`${key!}\`, use \`tools.${key!}\`.`;
  if (segments.length === 2 && section === 'tags' && /Hint$/.test(key!)) return `\`tags\` takes \`enable\` and \`disable\` lists of hints: \`tags: {enable: [${key!}]}\`.`;
  if (segments.length === 1 && (section === 'enable' || section === 'disable')) {
    return `\`${section}\` belongs inside a section: \`toolkits.${section}\` (which toolkits), or \`tools.<toolkit>.${section}\` (which tools of a toolkit).`;
  }
  return undefined;
}
