import { describe, expect, test } from 'vitest';
import type { OutStream } from '../../../src/cli/io.js';
import { Redactor } from '../../../src/cli/redact.js';

describe('Redactor', () => {
  test('replaces every occurrence of every registered secret', () => {
    const r = new Redactor();
    r.add('ak_live_123456');
    r.add('hunter2-db-pass');
    expect(r.redact('key ak_live_123456, again ak_live_123456; db hunter2-db-pass.')).toBe('key ****, again ****; db ****.');
    expect(r.redact('nothing secret here')).toBe('nothing secret here');
  });

  test('a secret of six characters is registered; five or fewer, or none, are not', () => {
    const r = new Redactor();
    r.add('abcdef');
    r.add('vwxyz');
    r.add(undefined);
    r.add('');
    expect(r.redact('abcdef vwxyz undefined')).toBe('**** vwxyz undefined');
  });

  test('a secret registered twice is replaced once per occurrence', () => {
    const r = new Redactor();
    r.add('s3cr3t-value');
    r.add('s3cr3t-value');
    expect(r.redact('s3cr3t-values3cr3t-value')).toBe('********');
  });

  test('the wrapped stream redacts what it writes and follows the terminal', () => {
    const written: string[] = [];
    const terminal = { isTTY: true, columns: 80, write: (chunk: string) => void written.push(chunk) } satisfies OutStream;
    const r = new Redactor();
    const out = r.wrap(terminal);
    r.add('late-added-secret'); // registered after wrapping: still redacted
    out.write('token=late-added-secret\n');
    expect(written).toEqual(['token=****\n']);
    expect(out.isTTY).toBe(true);
    expect(out.columns).toBe(80);
    terminal.columns = 120;
    expect(out.columns).toBe(120);
    expect(r.wrap({ isTTY: false, write: () => undefined }).isTTY).toBe(false);
  });
});
