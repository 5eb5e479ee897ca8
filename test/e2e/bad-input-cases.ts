/** Builders of hostile inputs shared by the bad-input suites (manifests, and the project file). */

/** A billion-laughs document: `levels` anchors, each a list of `width` aliases of the one before. */
export const laughs = (levels: number, width: number): string => {
  const out = [`l0: &l0 [${Array.from({ length: width }, () => 'lol').join(', ')}]`];
  for (let i = 1; i < levels; i++) out.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(', ')}]`);
  return `name: bomb\n${out.join('\n')}\n`;
};

// Deterministic pseudo-random bytes: the suite must not depend on the run.
export const noise = (length: number, seed: number): Buffer => {
  const b = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >>> 16;
  }
  return b;
};
export const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
export const utf16 = (s: string, le: boolean, bom: boolean): Buffer => {
  const body = Buffer.from(s, 'utf16le');
  if (!le) body.swap16();
  return Buffer.concat([bom ? Buffer.from(le ? [0xff, 0xfe] : [0xfe, 0xff]) : Buffer.alloc(0), body]);
};

/** A line of a JavaScript stack trace: never in any output. */
export const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>)$/m;
