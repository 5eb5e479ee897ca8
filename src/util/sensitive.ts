import { createHash } from 'node:crypto';
import { anyCase, asciiLower, MIN_TEXT_MASK, spellings } from './spellings.js';

/**
 * Sensitive values and their masks: the one mechanism behind every secret sessionctl keeps out of
 * its outputs (the user's `${VAR}` secrets and the API key alike). Values are replaced where they
 * are still plain data, before any format escapes them: a markdown `sk\_x` or a JSON `\"` can no
 * longer hide a value from the replacement, because no formatting has happened yet.
 *
 * A mask names where the value came from and never shows any of it: `(sensitive: HOOK_TOKEN)`.
 * What is kept in the state or a saved plan adds a digest, so that a change of the value is still
 * seen without the value: `(sensitive: HOOK_TOKEN) sha256:<hex>`.
 */

/** `(sensitive: A, B)`: the mask of a value from the variables (or sources) `labels`. */
export function sensitiveMark(labels: readonly string[]): string {
  return `(sensitive: ${[...new Set(labels)].sort().join(', ')})`;
}

/**
 * SHA-256 of the value with a fixed prefix, hex: what the state and saved plans keep to see a
 * change. Like any unsalted digest it lets someone who can read the state test guesses of a short
 * value; it never lets anyone read a value back. (A salt would change the digest on every run and
 * hide nothing more: the state would have to keep the salt beside it.)
 */
export function sensitiveDigest(value: string): string {
  return `sha256:${createHash('sha256').update('sessionctl sensitive value\0').update(value).digest('hex')}`;
}

/** The form the state and saved plans keep a sensitive value in: the mask and the digest. */
export function storedForm(value: string, labels: readonly string[]): string {
  return `${sensitiveMark(labels)} ${sensitiveDigest(value)}`;
}

/** A stored form anywhere in a text; group 1 is the mask. */
const STORED = /(\(sensitive: [A-Za-z0-9_, ]*\)) sha256:[0-9a-f]{64}/g;
const STORED_WHOLE = /^\(sensitive: ([A-Za-z0-9_, ]*)\) sha256:[0-9a-f]{64}$/;

/** The labels of a stored form (`HOOK_TOKEN` of `(sensitive: HOOK_TOKEN) sha256:...`), or undefined for any other value. */
export function storedLabels(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const m = STORED_WHOLE.exec(value);
  return m === null ? undefined : m[1]!.split(', ').filter((l) => l !== '');
}

/** A value one of `labels` holds, for the masker. */
export interface SensitiveValue {
  value: string;
  /** Where it came from: the variable names (`HOOK_TOKEN`), or `COMPOSIO_API_KEY` for the key. */
  labels: string[];
}

export { MIN_TEXT_MASK } from './spellings.js';
/** A cut value (`abcdefgh…`) is masked when at least this much of it shows before the ellipsis. */
const MIN_CUT = 8;

/**
 * The sensitive values of a run, and their masks. Every output passes its data through `json` or
 * its free text through `text` before it is formatted. Values are matched as they are and in the
 * spellings a service or a message may give them: JSON-escaped, percent-encoded, and cut short
 * before an ellipsis (a long value quoted in a message).
 */
/** One value as the masker searches for it. */
interface Entry {
  /** The value in each of its spellings. */
  needles: string[];
  /** The value with ASCII letters in lower case, matched in any case; undefined when it has no letter or is short (`k` would hit every word). */
  folded: string | undefined;
  mark: string;
  value: string;
  /** Its place in the longest-first order. */
  rank: number;
}

/** Texts are scanned for the first `GRAM` characters of each needle before any needle is searched. */
const GRAM = 4;

/** The values, longest first, and an index from the start of each spelling to the values that begin so. */
interface Table {
  entries: Entry[];
  byGram: Map<string, Entry[]>;
  /** Needles shorter than a gram: searched in every text. */
  short: Entry[];
}

export class ValueMasker {
  private readonly byValue = new Map<string, Set<string>>();
  private index: Table | undefined;

  private readonly onAdd: ((value: string, label: string) => void) | undefined;
  private readonly minText: number;

  /**
   * `onAdd` hears of each new value once, before it can be printed (GitHub's `::add-mask::`).
   * `minText` is the shortest value masked inside free text (default `MIN_TEXT_MASK`); a masker of
   * the API key alone masks it whatever its length.
   */
  constructor(options: { onAdd?: (value: string, label: string) => void; minText?: number } = {}) {
    this.onAdd = options.onAdd;
    this.minText = options.minText ?? MIN_TEXT_MASK;
  }

  /** Registers `value` under `label`; empty values are ignored. */
  add(value: string, label: string): void {
    if (value === '') return;
    const labels = this.byValue.get(value);
    if (labels?.has(label) === true) return;
    if (labels === undefined) {
      this.byValue.set(value, new Set([label]));
      this.onAdd?.(value, label);
    } else labels.add(label);
    this.index = undefined;
  }

  addAll(values: Iterable<SensitiveValue>): void {
    for (const v of values) for (const label of v.labels) this.add(v.value, label);
  }

  get size(): number {
    return this.byValue.size;
  }

  /** Every value with its labels. */
  entries(): SensitiveValue[] {
    return [...this.byValue].map(([value, labels]) => ({ value, labels: [...labels].sort() }));
  }

  /** A masker over the values with a label that passes `keep` (named by those labels only). */
  filter(keep: (label: string) => boolean): ValueMasker {
    const out = new ValueMasker({ minText: this.minText });
    for (const [value, labels] of this.byValue) for (const l of labels) if (keep(l)) out.add(value, l);
    return out;
  }

  /** The mask of a value registered as it is, else undefined. */
  markOf(value: string): string | undefined {
    const labels = this.byValue.get(value);
    return labels === undefined ? undefined : sensitiveMark([...labels]);
  }

  /**
   * Free text with every value masked: stored forms lose their digest, then each value (longest
   * first, so a whole scalar is masked before the secret inside it) in each of its spellings,
   * then what is left of a value cut short before `…` or `...`.
   */
  text(text: string): string {
    let out = text.includes('(sensitive: ') ? text.replace(STORED, '$1') : text;
    if (this.byValue.size === 0) return out;
    // Only the values whose spellings start somewhere in the text are searched: a run with
    // thousands of values masks thousands of strings without trying each value on each.
    const candidates = this.candidates(out);
    for (const entry of candidates) {
      for (const needle of entry.needles) if (out.includes(needle)) out = out.split(needle).join(entry.mark);
      if (entry.folded !== undefined) out = anyCase(out, entry.folded, entry.mark);
    }
    if (out.includes('…') || out.includes('...')) out = cuts(out, candidates);
    return out;
  }

  /** The values that may occur in `text`, longest first. */
  private candidates(text: string): Entry[] {
    const table = this.table();
    const found = new Set<Entry>(table.short);
    const folded = asciiLower(text);
    for (const t of folded === text ? [text] : [text, folded]) {
      for (let i = 0; i + GRAM <= t.length; i++) {
        const hits = table.byGram.get(t.slice(i, i + GRAM));
        if (hits !== undefined) for (const e of hits) found.add(e);
      }
    }
    return [...found].sort((a, b) => a.rank - b.rank);
  }

  /**
   * A deep copy of plain data (objects, arrays, strings) with every string masked as `text` masks
   * it (a string equal to a value becomes its mask, whatever its length). Other objects (maps,
   * class instances, functions) are kept as they are.
   */
  json<T>(value: T): T {
    if (this.byValue.size === 0 && !hasStored(value)) return value;
    return this.copy(value) as T;
  }

  private copy(value: unknown): unknown {
    if (typeof value === 'string') return this.maskString(value);
    if (Array.isArray(value)) return value.map((v) => this.copy(v));
    if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.copy(v);
      return out;
    }
    return value;
  }

  private maskString(value: string): string {
    return this.markOf(value) ?? this.text(value);
  }

  private table(): Table {
    if (this.index === undefined) {
      const entries = [...this.byValue]
        .filter(([value]) => value.length >= this.minText)
        .sort(([a], [b]) => b.length - a.length || (a < b ? -1 : 1))
        .map(([value, labels], rank): Entry => ({ needles: spellings(value), folded: value.length >= MIN_TEXT_MASK && /[A-Za-z]/.test(value) ? asciiLower(value) : undefined, mark: sensitiveMark([...labels]), value, rank }));
      const byGram = new Map<string, Entry[]>();
      const short: Entry[] = [];
      for (const e of entries) {
        if (e.needles.some((n) => n.length < GRAM)) {
          short.push(e);
          continue;
        }
        for (const gram of new Set([...e.needles, ...(e.folded === undefined ? [] : [e.folded])].map((n) => n.slice(0, GRAM)))) {
          const list = byGram.get(gram);
          if (list === undefined) byGram.set(gram, [e]);
          else list.push(e);
        }
      }
      this.index = { entries, byGram, short };
    }
    return this.index;
  }
}

/** `https://hooks.example.com/cb?tok…`: the visible start of a value before an ellipsis is masked. */
function cuts(text: string, entries: readonly Entry[]): string {
  let out = text;
  for (const entry of entries) {
    if (entry.value.length <= MIN_CUT) continue;
    for (const ellipsis of ['…', '...']) {
      let at = out.indexOf(ellipsis);
      while (at >= 0) {
        const start = cutStart(out, at, entry.value);
        if (start >= 0) {
          out = `${out.slice(0, start)}${entry.mark}${out.slice(at)}`;
          at = start + entry.mark.length;
        }
        at = out.indexOf(ellipsis, at + ellipsis.length);
      }
    }
  }
  return out;
}

/** Where the longest start (at least `MIN_CUT` characters) of `value` ends right at `end`, or -1. */
function cutStart(text: string, end: number, value: string): number {
  for (let k = Math.min(value.length - 1, end); k >= MIN_CUT; k--) {
    if (text.startsWith(value.slice(0, k), end - k)) return end - k;
  }
  return -1;
}

function hasStored(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('(sensitive: ');
  if (Array.isArray(value)) return value.some(hasStored);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.values(value).some(hasStored);
  return false;
}
