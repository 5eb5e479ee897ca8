import { describe, expect, test } from 'vitest';
import { applyPlan, type ApplyApi } from '../../../src/apply/apply.js';
import { buildPlan } from '../../../src/plan/plan.js';
import { refreshPlan } from '../../../src/plan/refresh.js';
import type { UpdateSessionRequest } from '../../../src/wire/request.js';
import type { Session } from '../../../src/wire/session.js';
import { A, now, onEachState, type World } from './world.js';

/*
 * The config version an update is guarded by: the one the refresh read, else the one recorded.
 * A version no PATCH can carry back (not a whole number from 0 to 2^53) sends nothing and fails
 * the manifest; no version at all sends the PATCH without a guard. The emulator answers; the read
 * is the emulator's session with the version of the test (e2e/apply-version-guard.test.ts plays
 * the same against a loopback server of its own).
 */

let w: World;
const CHANGED = A.replace('[gmail, slack]', '[gmail]');

/** A applied, then CHANGED planned with a read whose version is `version` (no read when it is 'no refresh'), and applied. */
async function updateWith(version: unknown) {
  await w.apply(w.docs(A), { now });
  const [before] = await w.entries();
  const sent: UpdateSessionRequest[] = [];
  const api: ApplyApi = { createSession: (b) => w.client.createSession(b), deleteSession: (id) => w.client.deleteSession(id), updateSession: (id, body) => (sent.push(body), w.client.updateSession(id, body)) };
  const state = await w.open();
  try {
    const planned = buildPlan(w.docs(CHANGED), state);
    const getSession = async (id: string): Promise<Session> => ({ ...(await w.client.getSession(id)), config_version: version }) as Session;
    const plan = version === 'no refresh' ? planned : await refreshPlan(planned, { getSession, concurrency: 1 });
    const result = await applyPlan(plan, { api, state, cwd: w.dir, now });
    return { before: before!, sent, result, after: state.list() };
  } finally {
    await state.unlock();
  }
}

const message = (id: string, where: string, shown: string): string =>
  `a: session ${id} was not updated: ${where} config version ${shown}, which is not a whole number from 0 to 2^53; a PATCH without the version the session was read at could overwrite a change made since`;

onEachState((fresh) => (w = fresh), () => {
  describe('a read version no PATCH can carry', () => {
    const invalid: Array<[string, unknown, string]> = [
      ['not whole', 1.5, '1.5'],
      ['below zero', -1, '-1'],
      ['past the safe integers', 2 ** 53, '9007199254740992'],
      ['a string', '2', '"2"'],
      ['40 characters as JSON, shown whole', 'x'.repeat(38), `"${'x'.repeat(38)}"`],
      ['41 characters as JSON, cut short', 'x'.repeat(39), `"${'x'.repeat(39)}...`],
    ];
    test.each(invalid)('%s: nothing sent, failed at the name with the session, the state as it was', async (_what, version, shown) => {
      const { before, sent, result, after } = await updateWith(version);
      expect([sent, await w.received('update')]).toStrictEqual([[], 0]);
      expect(result.items.map((i) => [i.action, i.outcome, i.session_id, i.diagnostics.map((d) => [d.code, d.severity, d.pointer, d.range?.start, d.message, d.hint])])).toStrictEqual([
        [
          'update',
          'failed',
          before.session_id,
          [
            [
              'apply/version-invalid',
              'error',
              '/name',
              { line: 1, col: 1 },
              message(before.session_id, 'the service answered', shown),
              'check what answers at the base URL (a proxy, a test server) or the state entry, then apply again; the session and the state keep what they had',
            ],
          ],
        ],
      ]);
      expect(result.tally).toMatchObject({ updated: 0, failed: 1 });
      expect([after, await w.entries()]).toStrictEqual([[before], [before]]);
    });

    test('a recorded version below zero, without a refresh: nothing sent, and the finding says the state records it', async () => {
      await w.apply(w.docs(A), { now });
      const s = await w.open();
      await s.record({ ...s.get('a', 'alice')!, config_version: -1 });
      await s.unlock();
      const { before, sent, result } = await updateWith('no refresh');
      expect([sent, result.items[0]!.diagnostics.map((d) => d.message)]).toStrictEqual([[], [message(before.session_id, 'the state records', '-1')]]);
    });
  });

  describe('the guard sent', () => {
    const guards: Array<[string, unknown, number | undefined]> = [
      ['the version read', 1, 1],
      ['0, a version like any other', 0, 0],
      ['the recorded version when the read has none', undefined, 1],
      ['the recorded version when the read says null', null, 1],
    ];
    test.each(guards)('%s', async (_what, version, expected) => {
      const { sent } = await updateWith(version);
      expect(sent).toStrictEqual([{ toolkits: { enable: ['gmail'] }, expected_config_version: expected }]);
    });

    test('no version read nor recorded (a service that keeps none): the PATCH goes without one', async () => {
      await w.apply(w.docs(A), { now });
      const s = await w.open();
      await s.record({ ...s.get('a', 'alice')!, config_version: null });
      await s.unlock();
      const { sent, result } = await updateWith(undefined);
      expect([sent, result.items.map((i) => i.outcome)]).toStrictEqual([[{ toolkits: { enable: ['gmail'] } }], ['updated']]);
    });
  });
});
