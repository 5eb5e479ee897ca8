import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { checkMassMissing, parseMissingLimit, type MissingGuard } from '../../../src/plan/mass-missing.js';
import type { Plan } from '../../../src/plan/plan.js';

/** A plan of `gone` items refresh found missing, `read` it found live, and `other` it did not read. */
function plan(gone: number, read: number, other = 0): Plan {
  const items = [
    ...Array.from({ length: gone }, () => ({ reason: 'session-missing' })),
    ...Array.from({ length: read }, () => ({ reason: 'unchanged', live: {} })),
    ...Array.from({ length: other }, () => ({ reason: 'new' })),
  ];
  return { items, deletions: [], diagnostics: [] } as unknown as Plan;
}

function stops(p: Plan, guard: Omit<MissingGuard, 'service'> = {}): string | undefined {
  try {
    checkMassMissing(p, { ...guard, service: 'https://backend.composio.dev' });
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
}

describe('checkMassMissing', () => {
  test('all of two or more read is a stop; one, or some, is not', () => {
    expect(stops(plan(0, 0))).toBeUndefined();
    expect(stops(plan(1, 0))).toBeUndefined();
    expect(stops(plan(1, 0, 5))).toBeUndefined();
    expect(stops(plan(2, 1))).toBeUndefined();
    expect(stops(plan(99, 1))).toBeUndefined();
    expect(stops(plan(2, 0))).toBe(
      'both recorded sessions that were read answer 404 (not found) at https://backend.composio.dev: no real deletion explains all of them, a key of another project or another base URL does; nothing was created, updated or deleted',
    );
    // Items that were not read (new manifests) do not count either way.
    expect(stops(plan(3, 0, 4))).toMatch(/^all 3 recorded sessions that were read answer 404/);
  });

  test('--max-missing: a count or a percentage of those read; more than it stops', () => {
    expect(stops(plan(2, 8), { maxMissing: { count: 2 } })).toBeUndefined();
    expect(stops(plan(3, 7), { maxMissing: { count: 2 } })).toBe(
      '3 of the 10 recorded sessions that were read answer 404 (not found) at https://backend.composio.dev: no real deletion explains that many, a key of another project or another base URL does; nothing was created, updated or deleted',
    );
    expect(stops(plan(1, 9), { maxMissing: { count: 0 } })).toMatch(/^1 of the 10 recorded/);
    expect(stops(plan(1, 9), { maxMissing: { percent: 10 } })).toBeUndefined();
    expect(stops(plan(2, 8), { maxMissing: { percent: 10 } })).toMatch(/^2 of the 10 recorded/);
    // More than 10 % of 19 is two (1.9 rounds down to a limit of 1).
    expect(stops(plan(1, 18), { maxMissing: { percent: 10 } })).toBeUndefined();
    expect(stops(plan(2, 17), { maxMissing: { percent: 10 } })).toMatch(/^2 of the 19 recorded/);
    expect(stops(plan(2, 0), { maxMissing: { count: 5 } })).toMatch(/^both recorded/);
  });

  test('--recreate-missing goes on, whatever the numbers; the hint names what was set', () => {
    expect(stops(plan(50, 0), { recreateMissing: true, maxMissing: { count: 0 } })).toBeUndefined();
    const hint = (guard: MissingGuard): string | undefined => {
      try {
        checkMassMissing(plan(3, 0), guard);
        return undefined;
      } catch (err) {
        return (err as UsageError).hint;
      }
    };
    expect(hint({ maxMissing: { count: 1 }, service: 's' })).toBe("check COMPOSIO_API_KEY and --base-url (or the project's base_url); if these sessions really are gone, run again with --recreate-missing or a higher --max-missing");
    expect(hint({ service: 's' })).toBe("check COMPOSIO_API_KEY and --base-url (or the project's base_url); if these sessions really are gone, run again with --recreate-missing");
  });
});

describe('parseMissingLimit', () => {
  test.each([
    ['0', { count: 0 }],
    ['25', { count: 25 }],
    [' 7 ', { count: 7 }],
    ['10%', { percent: 10 }],
    ['100%', { percent: 100 }],
    ['101%', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['ten', undefined],
    ['', undefined],
    ['5 %', undefined],
  ])('%j', (value, limit) => {
    expect(parseMissingLimit(value)).toEqual(limit);
  });
});
