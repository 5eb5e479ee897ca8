import { hostname } from 'node:os';
import { describe, expect, test } from 'vitest';
import { StateError } from '../../../src/diagnostics/errors.js';
import { describeHolder, formatWait, lockedError, lockOwner } from '../../../src/state/lock.js';

describe('describeHolder', () => {
  test.each([
    [undefined, 'another process (its lock cannot be read)'],
    [{ id: 'L1' }, 'another process (lock L1)'],
    [{ id: 'L1', hostname: 'ci-7' }, 'another process (lock L1)'],
    [{ id: 'L1', pid: 4242 }, 'process 4242 (lock L1)'],
    [{ id: 'L1', pid: 4242, hostname: 'ci-7' }, 'process 4242 on ci-7 (lock L1)'],
    [{ id: 'L1', pid: 4242, hostname: 'ci-7', since: '2026-03-01T10:00:00.000Z' }, 'process 4242 on ci-7 since 2026-03-01T10:00:00.000Z (lock L1)'],
    [{ id: 'L1', role: 'deployer' }, 'another process (role deployer) (lock L1)'],
    [{ id: 'L1', pid: 7, role: 'deployer', since: '2026-03-01T10:00:00Z' }, 'process 7 (role deployer) since 2026-03-01T10:00:00Z (lock L1)'],
  ])('%j is "%s"', (holder, text) => {
    expect(describeHolder(holder)).toBe(text);
  });
});

describe('lockedError', () => {
  const tail = 'another apply is running (or a state command). Wait for it with --lock-timeout (such as 5m); if its holder died, release the lock with';

  test('names the holder and the command that releases its lock; the location is the state; a StateError (exit 5)', () => {
    const err = lockedError('/s/state.json', { id: 'L1', pid: 4242, hostname: 'ci-7' }, 0);
    expect(err).toBeInstanceOf(StateError);
    expect(err.message).toBe(`the state is locked by process 4242 on ci-7 (lock L1): ${tail} \`sessionctl state unlock L1\`.`);
    expect(err.file).toBe('/s/state.json');
  });

  test('a holder that cannot be read: LOCK_ID stands for its id; a wait is said first', () => {
    const err = lockedError('pg:w1', undefined, 90_000);
    expect(err.message).toBe(`waited 90s, and the state is locked by another process (its lock cannot be read): ${tail} \`sessionctl state unlock LOCK_ID\`.`);
    expect(err.file).toBe('pg:w1');
  });

  test('a lock with a lease (PostgreSQL): when it lapses if its holder died, and that a run waiting then takes it over', () => {
    const err = lockedError('pg:w1', { id: 'L1', pid: 4242, hostname: 'ci-7', role: 'deploy', since: '2026-03-01T10:00:00.000Z', expires: '2026-03-01T10:00:15.000Z' }, 0);
    expect(err.message).toBe(
      'the state is locked by process 4242 on ci-7 (role deploy) since 2026-03-01T10:00:00.000Z (lock L1): another apply is running (or a state command). Wait for it with --lock-timeout (such as 5m); if its holder died, its lease ends at 2026-03-01T10:00:15.000Z and a run waiting then takes the lock over, or release it now with `sessionctl state unlock L1`.',
    );
  });
});

describe('formatWait', () => {
  test.each([
    [1, '0s'],
    [1500, '1.5s'],
    [1449, '1.4s'],
    [30_000, '30s'],
    [60_000, '1m'],
    [90_000, '90s'],
    [120_000, '2m'],
    [3_600_000, '60m'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatWait(ms)).toBe(text);
  });
});

test('lockOwner: the given pid on this host', () => {
  expect(lockOwner(4242)).toEqual({ pid: 4242, hostname: hostname() });
});
