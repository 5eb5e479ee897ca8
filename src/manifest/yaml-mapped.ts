import type { YAMLError } from 'yaml';
import type { Code } from '../diagnostics/codes.js';
import { lineAt } from './yaml-lines.js';

/** A yaml code with a code of ours: its words, fixed or from the error and the text. */
interface Mapped {
  code: Code;
  message?: string;
  hint?: string;
  words?: (error: YAMLError, text: string) => { message: string; hint: string };
}

/**
 * yaml's own codes that have a code of ours (with the catalogue's severity for it); every other one
 * is `yaml/syntax`, naming yaml's code. There is no DUPLICATE_KEY: the loader turns yaml's check off
 * (`uniqueKeys: false`, parse.ts) and finds duplicates itself (duplicate-keys.ts).
 */
export const mapped: Partial<Record<YAMLError['code'], Mapped>> = {
  TAB_AS_INDENT: { code: 'yaml/tab-indent', words: tabWords },
  TAG_RESOLVE_FAILED: { code: 'yaml/unknown-tag', words: tagWords },
  // With resolveKnownTags off yaml knows no tag for another kind of collection: only a verbatim tag
  // named like a property of every object (`!<constructor> {}`) gets here, and it is as unknown.
  BAD_COLLECTION_TYPE: { code: 'yaml/unknown-tag', words: tagWords },
  NON_STRING_KEY: { code: 'yaml/non-string-key', words: nonStringKeyWords },
  BAD_DIRECTIVE: { code: 'yaml/directive', words: directiveWords },
  // The composer ran out of stack. parse.ts measures the nesting first, so only a very high `maxDepth` gets here.
  RESOURCE_EXHAUSTION: { code: 'input/too-deep', message: 'collections are nested too deeply for the YAML parser to read', hint: 'a session manifest needs only a few levels; this looks like a generated or hostile file' },
};

/** The core schema's own types: a tag naming one of them is known, but can still not fit its value. */
const CORE_TYPES = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq']);

const tagHint = 'remove the tag; manifests use plain YAML values only';

/**
 * TAG_RESOLVE_FAILED and BAD_COLLECTION_TYPE in our words. yaml's own words name the tag as it
 * resolved it (`Unresolved tag: tag:yaml.org,2002:binary`), or are its internals: a verbatim tag
 * named like a property of every object (`!<constructor>`, `!<toString>`) is looked up on a plain
 * object and found, so yaml calls `tag.resolve is not a function`. Whatever yaml says, the tag is
 * one manifests do not take: the message quotes it as written (yaml points at the tag).
 */
function tagWords(error: YAMLError, text: string): { message: string; hint: string } {
  const tag = `the tag \`${text.slice(error.pos[0], error.pos[1])}\``;
  const core = /^Unresolved tag: tag:yaml\.org,2002:(\w+)$/.exec(error.message);
  if (core !== null && CORE_TYPES.has(core[1]!)) {
    return { message: `${tag} does not fit the value it is on`, hint: tagHint };
  }
  return { message: `${tag} is not one manifests use`, hint: tagHint };
}

/**
 * NON_STRING_KEY: a list, a mapping or nothing used as a key, or a key with a tag: with `stringKeys`
 * yaml refuses any tag on a key (`!<constructor> k: 1`) under this code, and points at the tag.
 */
function nonStringKeyWords(error: YAMLError, text: string): { message: string; hint: string } {
  const span = text.slice(error.pos[0], error.pos[1]);
  if (span.startsWith('!')) return { message: `the tag \`${span}\` on this key is not one manifests use`, hint: 'remove the tag: keys are plain strings' };
  return { message: 'a key here is not a plain string (a list, a mapping or nothing is used as a key)', hint: 'keys are plain strings; quote the key or restructure the value' };
}

/** TAB_AS_INDENT: yaml points at the tab. */
function tabWords(error: YAMLError, text: string): { message: string; hint: string } {
  return { message: `line ${lineAt(text, error.pos[0]).n} is indented with a tab`, hint: 'indent with spaces; YAML forbids tabs in indentation' };
}

/** BAD_DIRECTIVE: yaml's span is the directive (without the spaces or comment after it); its message says which rule it breaks. */
function directiveWords(error: YAMLError, text: string): { message: string; hint: string } {
  const written = `\`${text.slice(error.pos[0], error.pos[1])}\``;
  const hint = 'remove the directive: manifests need none';
  if (error.message.startsWith('Unknown directive')) return { message: `${written} is not a directive YAML knows`, hint };
  if (error.message.startsWith('%TAG')) return { message: `${written} needs two parts after \`%TAG\`: a handle and a prefix`, hint };
  if (error.message.startsWith('%YAML')) return { message: `${written} needs one part after \`%YAML\`: the version`, hint };
  return { message: `${written} is a directive manifests do not use`, hint };
}
