/**
 * A list whose items are made only as they are written: the file names of a big run's JSON report
 * (100,000 display paths made at once were 7 MB held beside everything else at the run's peak).
 */
export class LazyList<T> {
  constructor(
    readonly items: readonly T[],
    readonly make: (item: T) => unknown,
  ) {}
}

/** Items per piece of a long list: a few KB a piece, and few enough pieces for a quick write. */
const LIST_PIECE = 1000;

/**
 * `JSON.stringify(object, null, 2)`, in pieces that each end at a line end; joined, they are that
 * text byte for byte. Top-level lists (and `LazyList`s) are cut every `LIST_PIECE` items, so the
 * report of a 100,000-file run is never one string of megabytes, nor the copies made of it on the
 * way to a file or a pipe.
 *
 * A value nested in the object is its own `JSON.stringify(value, null, 2)` with every line after
 * the first indented one level more: exactly what the whole-object call writes, since JSON text
 * holds no line break other than its own (a string's are escaped). Keys whose value JSON leaves
 * out (undefined, functions) are left out here too.
 */
export function* jsonPieces(object: Readonly<Record<string, unknown>>): Generator<string> {
  const keys = Object.keys(object).filter((k) => isWritten(object[k]));
  if (keys.length === 0) {
    yield '{}\n';
    return;
  }
  yield '{\n';
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const value = object[key];
    const comma = k < keys.length - 1 ? ',' : '';
    const head = `  ${JSON.stringify(key)}: `;
    const list = value instanceof LazyList ? value : Array.isArray(value) ? new LazyList(value, (item) => item) : undefined;
    if (list === undefined || list.items.length === 0) {
      yield `${head}${nested(list === undefined ? value : [], '  ')}${comma}\n`;
      continue;
    }
    yield `${head}[\n`;
    for (let i = 0; i < list.items.length; i += LIST_PIECE) {
      const end = Math.min(i + LIST_PIECE, list.items.length);
      const lines: string[] = [];
      for (let j = i; j < end; j++) lines.push(`    ${nested(listItem(list.make(list.items[j]!)), '    ')}`);
      yield `${lines.join(',\n')}${end < list.items.length ? ',' : ''}\n`;
    }
    yield `  ]${comma}\n`;
  }
  yield '}\n';
}

/** What JSON writes for a value at this indentation (after its key or list dash). */
function nested(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
}

/** JSON writes a list item it cannot represent (undefined, a function) as null. */
function listItem(value: unknown): unknown {
  return isWritten(value) ? value : null;
}

function isWritten(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}
