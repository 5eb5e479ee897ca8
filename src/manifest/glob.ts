/**
 * A small glob matcher for manifest paths. Node 20's `path.matchesGlob` is experimental and prints
 * an ExperimentalWarning to stderr, and `fs.glob` arrived only in Node 22, so the few forms that
 * manifest paths need are compiled to a regular expression here:
 *
 * `*` (within one segment), `**` (any number of segments), `?`, `[abc]` / `[!abc]` and `{a,b}`.
 * Paths are matched with forward slashes. A leading dot is matched only explicitly, as in a shell.
 */
export function hasGlobMagic(pattern: string): boolean {
  return /[*?[\]{}]/.test(pattern);
}

/** Splits a pattern into the folder to walk from (no magic in it) and the rest. */
export function splitGlob(pattern: string): { base: string; rest: string } {
  const segments = pattern.split('/');
  const firstMagic = segments.findIndex(hasGlobMagic);
  if (firstMagic === -1) return { base: pattern, rest: '' };
  const base = segments.slice(0, firstMagic).join('/');
  return { base: base === '' && pattern.startsWith('/') ? '/' : base, rest: segments.slice(firstMagic).join('/') };
}

/** Compiles a glob (relative to its base) to a regular expression over forward-slash paths. */
export function globToRegExp(pattern: string): RegExp {
  const segments = pattern.split('/');
  let re = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      // Zero or more whole segments, none of them hidden.
      re += last ? '(?:(?!\\.)[^/]*(?:/(?!\\.)[^/]*)*)?' : '(?:(?!\\.)[^/]*/)*';
      return;
    }
    re += segmentToRegExp(segment) + (last ? '' : '/');
  });
  return new RegExp(`^${re}$`);
}

function segmentToRegExp(segment: string): string {
  let re = segment.startsWith('.') ? '' : '(?!\\.)';
  let braces = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) {
        re += '\\[';
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      re += `[${negate ? '^/' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      i = close;
    } else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|\\{}]/g, '\\$&');
  }
  return re + ')'.repeat(braces);
}
