import { FAILSAFE_SCHEMA, load, Type, type LoadOptions } from 'js-yaml';
import { isScalar, Schema as YamlSchema, type ScalarTag } from 'yaml';

/**
 * yaml's own resolvers for plain scalars under the project's profile (YAML 1.2 core schema, no
 * YAML 1.1 tags), in yaml's order: null, bool, int (octal, decimal, hex), float (.nan/.inf,
 * exponent, decimal). yaml picks the first whose `test` matches (`findScalarTagByTest`); anything
 * else is a string. Using these, rather than js-yaml's own schema, makes every plain scalar read
 * the same value by construction: js-yaml 4 reads `1_000`, `0b11` and `+0x1F` as numbers where
 * YAML 1.2 core (and so the loader) reads strings.
 */
const coreResolvers: readonly ScalarTag[] = new YamlSchema({ schema: 'core', merge: false, resolveKnownTags: false }).tags.filter(
  (tag): tag is ScalarTag => tag.default === true && 'test' in tag && tag.test instanceof RegExp,
);

const resolveOptions = { intAsBigInt: false } as Parameters<NonNullable<ScalarTag['resolve']>>[2];
const ignore = (): void => undefined;

/**
 * The first characters with which any of those resolvers can match: `~`, `n`/`N` (null), `t`/`T`/
 * `f`/`F` (bool), digits, signs and `.` (numbers); and the empty string. YAML 1.2 fixes these
 * (core schema, §10.3.2); the check keeps the regular expressions off most keys and words.
 */
const MAY_RESOLVE = /^(?:$|[~nNtTfF0-9+.-])/;

/** The yaml resolver that reads a plain scalar as something other than a string, if any. */
function coreResolver(text: string): ScalarTag | undefined {
  if (!MAY_RESOLVE.test(text)) return undefined;
  for (const tag of coreResolvers) if (tag.test!.test(text)) return tag;
  return undefined;
}

// js-yaml asks `resolve` and then, for the same scalar, `construct`; the match is kept between.
let matched: ScalarTag | undefined;

const yamlCoreScalars = new Type('tag:sessionctl,2026:yaml-core-plain-scalar', {
  kind: 'scalar',
  resolve: (text: unknown) => {
    matched = typeof text === 'string' ? coreResolver(text) : undefined;
    return matched !== undefined;
  },
  construct: (text: string) => {
    const tag = matched ?? coreResolver(text)!;
    matched = undefined;
    const value = tag.resolve(text, ignore, resolveOptions);
    return isScalar(value) ? value.value : value;
  },
});

/** Strings, sequences and mappings, plus the plain scalars above; no other tag, no merge keys. */
const schema = FAILSAFE_SCHEMA.extend({ implicit: [yamlCoreScalars] });

/** Nesting beyond this many levels goes to the loader, which measures and reports it. */
export const FAST_MAX_DEPTH = 32;

/**
 * Reads one YAML document into plain data with js-yaml, or returns undefined when js-yaml fails,
 * warns, or reads something the loader might read differently. Only for texts that passed
 * `findHazard`: this checks what the bytes alone cannot show.
 *
 * What is refused after reading, and why:
 * - anything but a mapping at the root: no document or an empty one (js-yaml reads a
 *   comment-only file as null) is the loader's `yaml/empty`, and any other root fails the schema
 *   (the two also differ on a block scalar's indentation indicator at the root);
 * - a key that a plain scalar of another type would print as (`1`, `true`, `null`, `1e+21`,
 *   `NaN`): js-yaml turns non-string keys into strings with `String()` (`0x10:` becomes "16"),
 *   where the loader keeps the key's text (`stringKeys`);
 * - a `__proto__` key: both parsers make it an own property, but by different means;
 * - a string holding `${`: the loader expands it, with located `env/` findings;
 * - a collection used as a key (see `sequencesIfPlain`);
 * - any js-yaml warning (for example a deficient indentation it tolerates).
 */
export function readPlainData(text: string, maxDepth: number): unknown {
  let warned = false;
  let sequences = 0;
  let lastSequence: unknown;
  const options: LoadOptions & { maxDepth: number } = {
    schema,
    json: false,
    maxDepth: Math.min(maxDepth, FAST_MAX_DEPTH),
    onWarning: () => {
      warned = true;
    },
    listener: (event, state) => {
      // A node that js-yaml first reads as a would-be key and keeps is closed twice, in a row.
      if (event === 'close' && state.kind === 'sequence' && state.result !== lastSequence) {
        lastSequence = state.result;
        sequences++;
      }
    },
  };
  let data: unknown;
  try {
    data = load(text, options);
  } catch {
    // Errors are the loader's to report, with positions.
    matched = undefined;
    return undefined;
  }
  if (warned || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return sequencesIfPlain(data) === sequences ? data : undefined;
}

/**
 * The number of sequences in `root` when its keys are as the loader would read them and no value
 * holds `${`; else -1.
 *
 * A collection used as a key is an error for the loader (`yaml/non-string-key`); js-yaml turns it
 * into a string and leaves it out of the data: a mapping becomes "[object Object]" (refused here),
 * a sequence its items joined by commas (`{[a]}` is `{"a": null}`). Without aliases every
 * sequence is its own object, so one that js-yaml built (its listener counted it) but that is not
 * in the data was such a key.
 */
function sequencesIfPlain(root: unknown): number {
  let count = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('${')) return -1;
    } else if (Array.isArray(value)) {
      count++;
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        if (key === '__proto__' || key === 'NaN' || key === 'Infinity' || key === '-Infinity' || key.includes('[object Object]') || coreResolver(key) !== undefined) return -1;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return count;
}
