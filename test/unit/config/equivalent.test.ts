import { describe, expect, test } from 'vitest';
import { sameEffect } from '../../../src/config/equivalent.js';

/*
 * sameEffect: whether two request bodies ask the service for the same session. What the plan
 * treats as a no-op, so every way of being different must count.
 */

type Body = Record<string, unknown>;
const u = (extra: Body = {}): Body => ({ user_id: 'u', ...extra });

describe('sameEffect: the same session', () => {
  test.each<[string, Body, Body]>([
    ['the same body', u({ toolkits: { enable: ['a'] } }), u({ toolkits: { enable: ['a'] } })],
    ['a list in another order', u({ toolkits: { enable: ['a', 'b'] } }), u({ toolkits: { enable: ['b', 'a'] } })],
    ['a default spelled out', u(), u({ manage_connections: { enable: true }, workbench: { enable: true, sandbox_size: 'standard' } })],
    ['the bare tag list and its object form', u({ tags: ['readOnlyHint'] }), u({ tags: { enable: ['readOnlyHint'] } })],
    ['no experimental and a null one', u(), u({ experimental: null })],
    ['no premium_usage and a null one', u(), u({ premium_usage: null })],
    ['lists inside experimental in another order, nulls among them', u({ experimental: { x: ['b', null, 'a', 1] } }), u({ experimental: { x: [1, 'a', null, 'b'] } })],
    ['lists inside objects of an object list', u({ experimental: { custom_tools: [{ slug: 'X', tags: ['b', 'a'] }] } }), u({ experimental: { custom_tools: [{ tags: ['a', 'b'], slug: 'X' }] } })],
  ])('%s', (_what, a, b) => {
    expect(sameEffect(a, b)).toBe(true);
    expect(sameEffect(b, a)).toBe(true);
  });
});

describe('sameEffect: another session', () => {
  test.each<[string, Body, Body]>([
    ['another toolkit', u({ toolkits: { enable: ['a'] } }), u({ toolkits: { enable: ['b'] } })],
    ['an allowlist and a denylist of the same toolkits', u({ toolkits: { enable: ['a'] } }), u({ toolkits: { disable: ['a'] } })],
    ['another user', u(), { user_id: 'v' }],
    ['a meta tool switched off', u(), u({ workbench: { enable: false } })],
    ['a preloaded tool', u(), u({ preload: { tools: ['GITHUB_X'] } })],
    ['another custom tool', u({ experimental: { custom_tools: [{ slug: 'X' }] } }), u({ experimental: { custom_tools: [{ slug: 'Y' }] } })],
    ['custom tools in another order (a list of objects keeps its order)', u({ experimental: { custom_tools: [{ slug: 'X' }, { slug: 'Y' }] } }), u({ experimental: { custom_tools: [{ slug: 'Y' }, { slug: 'X' }] } })],
    ['a list mixing objects and scalars in another order', u({ experimental: { x: ['a', { b: 1 }] } }), u({ experimental: { x: [{ b: 1 }, 'a'] } })],
    ['premium usage asked for', u(), u({ premium_usage: true })],
    ['premium usage false and not given', u({ premium_usage: false }), u()],
    ['experimental given and not', u({ experimental: { fast_mode: true } }), u()],
    ['1 and "1" in a list', u({ experimental: { x: [1] } }), u({ experimental: { x: ['1'] } })],
  ])('%s', (_what, a, b) => {
    expect(sameEffect(a, b)).toBe(false);
    expect(sameEffect(b, a)).toBe(false);
  });
});
