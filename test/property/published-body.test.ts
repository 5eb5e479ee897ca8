import { describe, expect, it } from 'vitest';
import { filled, shown, templateOf } from '../../src/config/published-body.js';
import { fc, runs, textOf } from './fast-check.js';

/*
 * A sensitive value is published as the parts that make it again (literal text and variables),
 * so that ensure rebuilds the value the pipeline validated from the application's own
 * environment: for any literal text around it (`${`, `$${`, a `$` just before a secret included)
 * and any secret values (empty, repeated, one inside another, holding `${` themselves), filling
 * the parts with the same variables gives the value back, reading no variable but the sensitive ones.
 */

const LITERAL = ['${', '$${', '$', '}', 'https://h.example/cb?t=', '&', 'x', ' ', '😀', ':-'];
const NAMES = ['HOOK_TOKEN', 'API_SECRET', 'B'];

const scalar = fc
  .tuple(
    fc.array(fc.tuple(textOf(LITERAL, 6), fc.constantFrom(...NAMES)), { minLength: 1, maxLength: 4 }),
    textOf(LITERAL, 6),
    fc.record({ HOOK_TOKEN: fc.oneof(fc.constant(''), fc.string({ maxLength: 10 }), textOf(LITERAL, 3)), API_SECRET: fc.string({ maxLength: 10 }), B: fc.constantFrom('x', 'xx', '${B}') }),
  )
  .map(([pairs, tail, env]) => {
    const value = pairs.map(([lit, name]) => lit + env[name as keyof typeof env]).join('') + tail;
    const used = [...new Set(pairs.map(([, name]) => name))];
    return { value, env: env as Record<string, string>, parts: used.map((name) => ({ name, value: env[name as keyof typeof env] })) };
  });

const regressions: Array<[{ value: string; env: Record<string, string>; parts: Array<{ name: string; value: string }> }]> = [
  [{ value: 'a${b', env: { B: 'x' }, parts: [{ name: 'B', value: 'x' }] }],
  [{ value: 'xx', env: { B: 'x' }, parts: [{ name: 'B', value: 'x' }] }],
];

describe('templateOf: a sensitive value as the parts that make it again', () => {
  it('makes the value again from the same variables, and reads only the sensitive ones', () => {
    fc.assert(
      fc.property(scalar, (s) => {
        const parts = templateOf(s);
        expect(filled(parts, s.env)).toStrictEqual({ value: s.value });
        for (const p of parts) if (typeof p !== 'string') expect(s.parts.map((x) => x.name)).toContain(p.variable);
        // No secret is left in the literal text (where a secret's value is also literal text, that is a reference too).
        for (const secret of s.parts) if (secret.value !== '') for (const p of parts) if (typeof p === 'string') expect(p).not.toContain(secret.value);
      }),
      runs(regressions),
    );
  });

  it('shows each secret as its reference and keeps literal text as it is', () => {
    const parts = templateOf({ value: 'https://h.example/cb?token=s3cr3t&x=${y}$', parts: [{ name: 'HOOK_TOKEN', value: 's3cr3t' }] });
    expect(parts).toStrictEqual(['https://h.example/cb?token=', { variable: 'HOOK_TOKEN' }, '&x=${y}$']);
    expect(shown(parts)).toBe('https://h.example/cb?token=${HOOK_TOKEN}&x=${y}$');
    expect(templateOf({ value: 'ab', parts: [{ name: 'A', value: 'a' }, { name: 'AB', value: 'ab' }] })).toStrictEqual([{ variable: 'AB' }]);
    expect(templateOf({ value: 'plain', parts: [{ name: 'EMPTY', value: '' }] })).toStrictEqual(['plain']);
    expect(filled([{ variable: 'GONE' }], {})).toStrictEqual({ missing: 'GONE' });
  });
});
