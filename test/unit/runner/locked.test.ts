import { describe, expect, test } from 'vitest';
import { StateError } from '../../../src/diagnostics/errors.js';
import type { Report } from '../../../src/report/types.js';
import { underLock } from '../../../src/runner/locked.js';
import type { RunOutcome } from '../../../src/runner/outcome.js';
import type { LockedState } from '../../../src/state/store.js';

/** A state whose unlock fails as given (or succeeds), counting the calls. */
function stateUnlocking(failure?: Error): LockedState & { unlocks: number } {
  const s = {
    unlocks: 0,
    location: '/w/st/state.json',
    hashAtLoad: '',
    get: () => undefined,
    list: () => [],
    binding: undefined,
    bind: async () => undefined,
    publish: async () => undefined,
    record: async () => undefined,
    forget: async () => undefined,
    unlock: async () => {
      s.unlocks++;
      if (failure !== undefined) throw failure;
    },
  };
  return s;
}

function outcome(): RunOutcome {
  const report: Report = {
    command: 'apply',
    files: ['/w/m/a.yaml'],
    diagnostics: [{ code: 'apply/create-failed', severity: 'error', message: 'a: create refused', file: '/w/m/a.yaml', range: { start: { line: 1, col: 1 }, end: { line: 1, col: 5 } } }],
    summary: { errors: 1, warnings: 0, infos: 0, files: 1, manifests: 1 },
  };
  return { report, sources: new Map(), secrets: [] };
}

describe('underLock', () => {
  test('the work done: the lock released once, the outcome as the work made it', async () => {
    const state = stateUnlocking();
    const made = outcome();
    expect(await underLock(state, async () => made)).toBe(made);
    expect(state.unlocks).toBe(1);
    expect(made.report.diagnostics.map((d) => d.code)).toStrictEqual(['apply/create-failed']);
  });

  test('a release that fails after the work: the report is kept, with one more finding, sorted and counted', async () => {
    const state = stateUnlocking(new StateError('the state lock L1 could not be released (EIO)', '/w/st/state.json'));
    const out = await underLock(state, async () => outcome());
    expect(out.report.diagnostics.map((d) => [d.code, d.severity, d.message, d.file])).toStrictEqual([
      ['state/write-failed', 'error', 'the state lock L1 could not be released (EIO)', undefined],
      ['apply/create-failed', 'error', 'a: create refused', '/w/m/a.yaml'],
    ]);
    expect(out.report.summary).toStrictEqual({ errors: 2, warnings: 0, infos: 0, files: 1, manifests: 1 });
  });

  test('a work that fails: its error is what the run says, whatever the release does', async () => {
    const state = stateUnlocking(new StateError('cannot release', '/w/st/state.json'));
    await expect(underLock(state, async () => Promise.reject(new TypeError('a bug')))).rejects.toThrow(new TypeError('a bug'));
    expect(state.unlocks).toBe(1);
  });
});
