import { describe, expect, test } from 'vitest';
import { parseManifestText } from '../../../src/manifest/load.js';
import { planPublication, publicationOf } from '../../../src/plan/publications.js';
import { hasRollout, rolloutWork } from '../../../src/plan/rollout-plan.js';
import { groupRequests } from '../../../src/rollout/request.js';
import { versionKey, type FleetCount, type Publication } from '../../../src/state/fleet.js';

const ENV = { HOOK_TOKEN: 'hook-secret-1' };
const v = (extra: string) => `name: agent\nuser_id: <end-user>\ntoolkits: [gmail, github]\n${extra}`;

function doc(text: string, env: Record<string, string> = ENV) {
  const parsed = parseManifestText(text, '/w/agent.yaml', { env });
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return parsed.documents[0]!;
}

/** The publication apply writes for `text` as version `version`. */
function published(text: string, version: number, env: Record<string, string> = ENV, apiVersion: '3' | '3.1' = '3'): Publication {
  const p = planPublication(doc(text, env), {}, apiVersion);
  return publicationOf({ ...p, version }, 'agent.yaml', new Date(0));
}

function fleetOf(byVersion: Array<[number, number]>): FleetCount {
  return { name: 'agent', sessions: byVersion.reduce((n, [, c]) => n + c, 0), unknown: 0, byVersion: new Map(byVersion), samples: new Map(byVersion.map(([ver]) => [ver, [`u${ver}a`, `u${ver}b`]])) };
}

const TOOLS1 = 'tools:\n  github: { disable: [GITHUB_ADD_LABELS_TO_AN_ISSUE] }\n';
const TOOLS2 = 'tools:\n  github: { disable: [GITHUB_ADD_LABELS_TO_AN_ISSUE, GITHUB_ADD_ASSIGNEES_TO_AN_ISSUE] }\n';

describe('plan of a rollout: the fleet grouped by the version each session is on', () => {
  test('a changed manifest: the sessions of the version it replaces are one group, its change planned once, with samples', () => {
    const v1 = published(v(TOOLS1), 1);
    const plan = planPublication(doc(v(TOOLS2)), { published: new Map([['agent', v1]]), fleet: new Map([['agent', fleetOf([[1, 48_912]])]]) }, '3');
    expect([plan.action, plan.version]).toStrictEqual(['publish', 2]);
    const r = plan.rollout!;
    expect([r.version, r.update, r.replace, r.unchanged, rolloutWork(r), hasRollout(r)]).toStrictEqual([2, 48_912, 0, 0, 48_912, true]);
    expect(r.groups.map((g) => [g.from, g.sessions, g.action, g.known, g.changes.map((c) => c.field), g.samples, g.sensitiveChanged, g.unpatchable, g.before])).toStrictEqual([
      [1, 48_912, 'update', true, ['tools.github.disable'], ['u1a', 'u1b'], false, [], v1.body],
    ]);
  });

  test('every session on the version published: a rollout with nothing to do; a fleet counted without samples; a state without publications', () => {
    const v1 = published(v(TOOLS1), 1);
    const done = planPublication(doc(v(TOOLS1)), { published: new Map([['agent', v1]]), fleet: new Map([['agent', fleetOf([[1, 30]])]]) }, '3');
    expect([done.rollout, hasRollout(done.rollout), rolloutWork(done.rollout)]).toStrictEqual([{ version: 1, update: 0, replace: 0, unchanged: 30, groups: [] }, false, 0]);
    expect(rolloutWork(undefined)).toBe(0);
    const bare: FleetCount = { name: 'agent', sessions: 4, unknown: 0, byVersion: new Map([[1, 4]]) };
    const unsampled = planPublication(doc(v(TOOLS2)), { published: new Map([['agent', v1]]), fleet: new Map([['agent', bare]]) }, '3');
    expect(unsampled.rollout!.groups.map((g) => [g.from, g.samples])).toStrictEqual([[1, []]]);
    // Rows with no publication beside them (the state edited by hand): planned as of an unknown body.
    const orphan = planPublication(doc(v(TOOLS2)), { fleet: new Map([['agent', { ...bare, byVersion: new Map([[0, 4]]) }]]) }, '3');
    expect(orphan.rollout!.groups.map((g) => [g.from, g.known, g.action, g.changes, g.unpatchable, g.before, g.samples])).toStrictEqual([[0, false, 'update', [], [], null, []]]);
  });

  test('sessions on several older versions: each group planned from its own body (kept in the history); those on the new version unchanged', () => {
    const v1 = published(v(''), 1);
    const v2 = published(v(TOOLS1), 2);
    const plan = planPublication(doc(v(TOOLS2)), {
      published: new Map([['agent', v2]]),
      publishedVersions: new Map([[versionKey('agent', 1), v1]]),
      fleet: new Map([['agent', fleetOf([[1, 5], [2, 7], [0, 2]])]]),
    }, '3');
    const r = plan.rollout!;
    expect([r.update, r.replace, r.unchanged]).toStrictEqual([14, 0, 0]);
    expect(r.groups.map((g) => [g.from, g.known, g.changes.map((c) => `${c.field} ${c.op}`)])).toStrictEqual([
      [2, true, ['tools.github.disable change']],
      [1, true, ['tools add']],
      // A session of an unknown version: its body is not kept, so every declared field is sent.
      [0, false, []],
    ]);
  });

  test('an interrupted rollout: nothing to publish, the sessions still behind are the work', () => {
    const v2 = published(v(TOOLS2), 2);
    const v1 = published(v(TOOLS1), 1);
    const plan = planPublication(doc(v(TOOLS2)), { published: new Map([['agent', v2]]), publishedVersions: new Map([[versionKey('agent', 1), v1]]), fleet: new Map([['agent', fleetOf([[1, 3], [2, 9]])]]) }, '3');
    expect([plan.action, plan.rollout!.update, plan.rollout!.unchanged, plan.rollout!.groups.map((g) => g.from)]).toStrictEqual(['unchanged', 3, 9, [1]]);
  });

  test('a change PATCH cannot carry is a replace, and says which field', () => {
    const v1 = published(v('experimental:\n  assistive_prompt_config: { user_timezone: Europe/Paris }\n'), 1, ENV, '3.1');
    const plan = planPublication(doc(v('experimental:\n  assistive_prompt_config: { user_timezone: Europe/Berlin }\n')), { published: new Map([['agent', v1]]), fleet: new Map([['agent', fleetOf([[1, 4]])]]) }, '3.1');
    expect([plan.rollout!.update, plan.rollout!.replace, plan.rollout!.groups[0]!.unpatchable, rolloutWork(plan.rollout)]).toStrictEqual([0, 4, ['experimental.assistive_prompt_config'], 4]);
  });

  test('a first publish has no rollout; a republish with no session yet still has its group for creates that raced it', () => {
    expect(planPublication(doc(v(TOOLS1)), {}, '3').rollout).toBeUndefined();
    const v1 = published(v(TOOLS1), 1);
    const plan = planPublication(doc(v(TOOLS2)), { published: new Map([['agent', v1]]) }, '3');
    expect([plan.rollout!.update, plan.rollout!.groups.map((g) => [g.from, g.sessions, g.samples]), hasRollout(plan.rollout)]).toStrictEqual([0, [[1, 0, []]], true]);
    const same = planPublication(doc(v(TOOLS1)), { published: new Map([['agent', v1]]) }, '3');
    expect([same.action, same.rollout, hasRollout(same.rollout)]).toStrictEqual(['unchanged', undefined, false]);
  });

  test('the PATCH of each group: only what differs from its body, a field no longer declared as null, a secret as its value', () => {
    const hook = 'manage_connections: { callback_url: "https://h.example/cb?t=${HOOK_TOKEN}" }\n';
    const v1 = published(v(TOOLS1 + hook), 1);
    const next = planPublication(doc(v(hook)), { published: new Map([['agent', v1]]), fleet: new Map([['agent', fleetOf([[1, 1]])]]) }, '3');
    expect(groupRequests(next, next.rollout!.groups)).toStrictEqual([{ from: 1, patch: { tools: null } }]);
    // The secret rotated: its template reads the same, so the field is sent with the pipeline's value.
    const rotated = planPublication(doc(v(TOOLS1 + hook), { HOOK_TOKEN: 'hook-secret-2' }), { published: new Map([['agent', v1]]), fleet: new Map([['agent', fleetOf([[1, 1]])]]) }, '3');
    expect(rotated.rollout!.groups[0]!.sensitiveChanged).toBe(true);
    expect(groupRequests(rotated, rotated.rollout!.groups)).toStrictEqual([{ from: 1, patch: { manage_connections: { callback_url: 'https://h.example/cb?t=hook-secret-2' } } }]);
  });
});
