import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { bodyHash, requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { parseManifestText } from '../../../src/manifest/load.js';
import { buildPlan, countActions, deletionOf, formatCounts, hasChanges, manifestsHash, type PlanOptions } from '../../../src/plan/plan.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { Json } from '../../../src/wire/json.js';

const CWD = '/w';

function docs(text: string, env: Record<string, string> = {}, file = '/w/m/a.yaml') {
  const parsed = parseManifestText(text, file, { env });
  expect(parsed.diagnostics).toEqual([]);
  return parsed.documents;
}

function stateOf(entries: StateEntry[]) {
  return {
    hashAtLoad: entries.length === 0 ? '' : 'h',
    get: (name: string, user: string) => entries.find((e) => e.name === name && e.user_id === user),
    list: () => entries,
  };
}

/** The entry apply would have written for a manifest text. */
function applied(text: string, extra: Partial<StateEntry> = {}, env: Record<string, string> = {}): StateEntry {
  const doc = docs(text, env)[0]!;
  const body = requestBody(doc.data as ManifestData);
  return {
    name: doc.name,
    user_id: String((doc.data as ManifestData).user_id),
    session_id: `trs_${doc.name}`,
    mcp_url: `http://x/${doc.name}/mcp`,
    tool_router_tools: [],
    config_version: 1,
    body_hash: bodyHash(body),
    body: body as unknown as { [key: string]: Json },
    applied_at: 't',
    file: 'm/a.yaml',
    ...extra,
  };
}

const V1 = `name: a
user_id: bot
toolkits:
  enable: [gmail, slack]
tags: [readOnlyHint]
`;

describe('buildPlan: one action per manifest and user', () => {
  test('nothing recorded: create, with the wire body and the expected config', () => {
    const plan = buildPlan(docs(V1), stateOf([]));
    expect(plan.items.map((i) => [i.name, i.user_id, i.action, i.reason, i.blocked])).toEqual([['a', 'bot', 'create', 'not-applied', false]]);
    expect(plan.items[0]!.body).toEqual({ user_id: 'bot', toolkits: { enable: ['gmail', 'slack'] }, tags: ['readOnlyHint'] });
    expect(plan.items[0]!.changes).toEqual([]);
    expect(plan.deletions).toEqual([]);
    expect(countActions(plan)).toEqual({ create: 1, update: 0, replace: 0, delete: 0, 'no-op': 0, unknown: 0 });
    expect(hasChanges(plan)).toBe(true);
  });

  test('the recorded body: no-op', () => {
    const plan = buildPlan(docs(V1), stateOf([applied(V1)]));
    expect(plan.items.map((i) => [i.action, i.reason, i.changes, i.patch])).toEqual([['no-op', 'up-to-date', [], undefined]]);
    expect(hasChanges(plan)).toBe(false);
  });

  test('list order is no change (lists are sets at the service)', () => {
    const reordered = V1.replace('[gmail, slack]', '[slack, gmail]');
    expect(buildPlan(docs(reordered), stateOf([applied(V1)])).items[0]!.action).toBe('no-op');
  });

  test('a toolkit added and a tag removed: update in place, exactly those two changes at their lines', () => {
    const v2 = `name: a
user_id: bot
toolkits:
  enable: [gmail, slack, notion]
`;
    const [item] = buildPlan(docs(v2), stateOf([applied(V1)])).items;
    expect(item!.action).toBe('update');
    expect(item!.reason).toBe('config-changed');
    expect(item!.changes.map((c) => [c.field, c.op, c.members ?? null, c.old ?? null, c.new ?? null, c.range?.start])).toEqual([
      ['tags', 'remove', null, ['readOnlyHint'], null, { line: 1, col: 1 }],
      ['toolkits.enable', 'change', { added: ['notion'], removed: [] }, ['gmail', 'slack'], ['gmail', 'slack', 'notion'], { line: 4, col: 3 }],
    ]);
    // PATCH sends what changed: the whole allowlist (PATCH replaces it), and null for the tags no longer declared.
    expect(item!.patch).toEqual({ toolkits: { enable: ['gmail', 'slack', 'notion'] }, tags: null });
  });

  test('a changed nested value is one change line, and PATCH sends the block with null for a removed member', () => {
    const before = 'name: a\nuser_id: bot\nmanage_connections:\n  enable: true\n  callback_url: https://x.example/cb\n';
    const after = 'name: a\nuser_id: bot\nmanage_connections:\n  enable: false\n';
    const [item] = buildPlan(docs(after), stateOf([applied(before)])).items;
    expect(item!.changes.map((c) => [c.field, c.op, c.old ?? null, c.new ?? null])).toEqual([
      ['manage_connections.callback_url', 'remove', 'https://x.example/cb', null],
      ['manage_connections.enable', 'change', true, false],
    ]);
    expect(item!.patch).toEqual({ manage_connections: { enable: false, callback_url: null } });
  });

  test('changed custom tools: replace (PATCH cannot change them), and the plan says why', () => {
    const tool = (d: string) => `name: a\nuser_id: bot\nexperimental:\n  custom_tools:\n    - slug: LOCAL_X\n      name: X\n      description: ${d}\n      input_schema: { type: object }\n`;
    const [item] = buildPlan(docs(tool('new')), stateOf([applied(tool('old'))])).items;
    expect([item!.action, item!.reason, item!.replaces?.session_id]).toEqual(['replace', 'custom-tools-changed', 'trs_a']);
    expect(item!.patch).toBeUndefined();
  });

  test('a literal user_id that changed: replace the one other session of the manifest', () => {
    const old = applied(V1);
    const [item] = buildPlan(docs(V1.replace('user_id: bot', 'user_id: bot-2')), stateOf([old])).items;
    expect([item!.action, item!.reason, item!.replaces?.user_id, item!.replaces?.session_id]).toEqual(['replace', 'user-changed', 'bot', 'trs_a']);
    expect(item!.changes.map((c) => [c.field, c.old, c.new])).toEqual([['user_id', 'bot', 'bot-2']]);
  });

  test('a ${VAR} user_id serves several users: another user is a create, and every recorded user is planned too', () => {
    const text = V1.replace('user_id: bot', 'user_id: ${USER_ID}');
    const alice = applied(text, {}, { USER_ID: 'alice' });
    const plan = buildPlan(docs(text, { USER_ID: 'bob' }), stateOf([alice]), { prune: { roots: ['/w/m'], cwd: CWD } });
    expect(plan.items.map((i) => [i.user_id, i.action, i.reason, i.body.user_id])).toEqual([
      ['bob', 'create', 'not-applied', 'bob'],
      ['alice', 'no-op', 'up-to-date', 'alice'],
    ]);
    expect(plan.deletions).toEqual([]);
    // The manifest changed: the user of this run and each recorded user are updated alike.
    const changed = buildPlan(docs(text.replace('gmail', 'github'), { USER_ID: 'alice' }), stateOf([alice, applied(text, {}, { USER_ID: 'carol' })]));
    expect(changed.items.map((i) => [i.user_id, i.action, i.patch?.toolkits])).toEqual([
      ['alice', 'update', { enable: ['github', 'slack'] }],
      ['carol', 'update', { enable: ['github', 'slack'] }],
    ]);
  });

  test('two other users recorded for a literal user: no guess, a create', () => {
    const plan = buildPlan(docs(V1.replace('user_id: bot', 'user_id: carol')), stateOf([applied(V1), applied(V1.replace('bot', 'dave'))]));
    expect(plan.items[0]!.action).toBe('create');
  });

  test('state without bodies (version 1, or import): the same hash is a no-op, another an update that sends every field', () => {
    const entry = { ...applied(V1), body: null };
    expect(buildPlan(docs(V1), stateOf([entry])).items[0]!.action).toBe('no-op');
    const [item] = buildPlan(docs(V1.replace('[gmail, slack]', '[gmail]')), stateOf([entry])).items;
    expect([item!.action, item!.changes]).toEqual(['update', []]);
    expect(item!.patch).toEqual({ toolkits: { enable: ['gmail'] }, tags: ['readOnlyHint'] });
  });

  test('a create of unknown outcome blocks the manifest, with a finding naming the user and the time; --recreate-unknown plans the create', () => {
    const entry: StateEntry = { ...applied(V1), session_id: '', body: null, pending_create: { since: '2026-11-25T10:00:00.000Z', body_hash: 'h', status: 'unknown', reason: 'timeout' } };
    const plan = buildPlan(docs(V1), stateOf([entry]));
    expect(plan.items.map((i) => [i.action, i.reason, i.blocked])).toEqual([['create', 'outcome-unknown', true]]);
    expect(plan.diagnostics.map((d) => [d.code, d.severity, d.range?.start])).toEqual([['state/outcome-unknown', 'error', { line: 1, col: 1 }]]);
    expect(plan.diagnostics[0]!.message).toContain('user "bot" was sent at 2026-11-25T10:00:00.000Z');
    expect(plan.diagnostics[0]!.hint).toContain('sessionctl import a trs_...');
    const again = buildPlan(docs(V1), stateOf([entry]), { recreateUnknown: true });
    expect(again.items.map((i) => [i.action, i.blocked])).toEqual([['create', false]]);
    expect(again.diagnostics).toEqual([]);
  });

  test('sessions a replace left behind are cleaned up by the next plan, even a no-op', () => {
    const plan = buildPlan(docs(V1), stateOf([applied(V1, { superseded: ['trs_old'] })]));
    expect(plan.items.map((i) => [i.action, i.cleanup])).toEqual([['no-op', ['trs_old']]]);
    expect(hasChanges(plan)).toBe(true);
  });
});

describe('buildPlan: --prune deletes only what the paths owned', () => {
  const gone = (name: string, file?: string): StateEntry => ({ ...applied(V1.replace('name: a', `name: ${name}`)), ...(file !== undefined ? { file } : { file: undefined }) });
  const scope = (...roots: string[]): PlanOptions => ({ prune: { roots, cwd: CWD } });

  test.each([
    ['the file itself', ['/w/m/b.yaml'], ['b']],
    ['its folder', ['/w/m'], ['b', 'c']],
    ['a glob that matches it', ['/w/m/*.yaml'], ['b']],
    ['a glob that does not', ['/w/m/*.yml'], []],
    ['a sibling folder', ['/w/other'], []],
    ['a folder whose name is a prefix', ['/w/m/su'], []],
  ])('scoped by %s', (_name, roots, deleted) => {
    const entries = [applied(V1), gone('b', 'm/b.yaml'), gone('c', 'm/sub/c.yaml'), gone('d', 'other-place/d.yaml'), gone('e')];
    const plan = buildPlan(docs(V1), stateOf(entries), scope(...roots));
    expect(plan.deletions.map((d) => [d.name, d.session_id, d.reason])).toEqual(deleted.map((n) => [n, `trs_${n}`, 'manifest-removed']));
    expect(countActions(plan).delete).toBe(deleted.length);
  });

  test('without --prune nothing is deleted, and the plan counts what --prune would delete', () => {
    const plan = buildPlan(docs(V1), stateOf([applied(V1), gone('b', 'm/b.yaml')]), { countPrunable: { roots: ['/w/m'], cwd: CWD } });
    expect([plan.deletions, plan.prunable]).toEqual([[], 1]);
  });

  test('an entry replaced because its user changed is not also deleted', () => {
    const plan = buildPlan(docs(V1.replace('user_id: bot', 'user_id: bot-2')), stateOf([applied(V1)]), scope('/w/m'));
    expect(plan.items.map((i) => i.action)).toEqual(['replace']);
    expect(plan.deletions).toEqual([]);
  });

  test('an entry with only a create intent has no session to delete', () => {
    const intent: StateEntry = { ...gone('b', 'm/b.yaml'), session_id: '', pending_create: { since: 't', body_hash: 'h', status: 'in-flight' } };
    expect(buildPlan(docs(V1), stateOf([intent]), scope('/w/m')).deletions).toEqual([]);
  });
});

describe('manifestsHash', () => {
  test('follows names, users and bodies but not document order', () => {
    const two = `${V1}---\nname: b\nuser_id: u2\n`;
    const ab = buildPlan(docs(two), stateOf([]));
    expect(manifestsHash([...ab.items].reverse())).toBe(ab.manifestsHash);
    expect(buildPlan(docs(two.replace('u2', 'u3')), stateOf([])).manifestsHash).not.toBe(ab.manifestsHash);
  });
});

describe('buildPlan: every field of an item, and the edges of each action', () => {
  const A = applied(V1);

  test('a create holds no recorded entry; a no-op holds its entry, the wire body, its hash and the expected config', () => {
    const [create] = buildPlan(docs(V1), stateOf([])).items;
    expect(create).not.toHaveProperty('recorded');
    expect(create).not.toHaveProperty('replaces');
    expect(create).not.toHaveProperty('patch');
    expect([create!.name, create!.file, create!.user_id, create!.cleanup, create!.blocked]).toStrictEqual(['a', '/w/m/a.yaml', 'bot', [], false]);
    const [noop] = buildPlan(docs(V1), stateOf([A])).items;
    expect(noop!.recorded).toBe(A);
    expect(noop!.body_hash).toBe(A.body_hash);
    expect([noop!.expected.config['toolkits'], noop!.expected.config['tags'], noop!.expected.toolRouterTools.length]).toStrictEqual([{ enabled: ['gmail', 'slack'] }, { enabled: ['readOnlyHint'] }, 6]);
  });

  test('a create of unknown outcome on an entry that has a session (a replace in flight) blocks an update; an intent left in flight says where its session would be named', () => {
    const entry = applied(V1, { pending_create: { since: '2026-11-25T10:00:00.000Z', body_hash: 'h', status: 'in-flight' } });
    const plan = buildPlan(docs(V1), stateOf([entry]));
    expect(plan.items.map((i) => [i.action, i.reason, i.blocked, i.changes])).toStrictEqual([['update', 'outcome-unknown', true, []]]);
    expect(plan.diagnostics.map((d) => [d.code, d.severity, d.file, d.pointer, d.message])).toStrictEqual([
      [
        'state/outcome-unknown',
        'error',
        '/w/m/a.yaml',
        '/name',
        'a: a create for user "bot" was sent at 2026-11-25T10:00:00.000Z and its outcome is unknown (the run that sent it ended before it recorded the answer: it was killed, or lost its state; that run\'s report names a session it created); a session may exist that the state does not record, so nothing is sent for this manifest',
      ],
    ]);
    // Marked unknown without a reason (a state written by hand): none is made up.
    const bare = applied(V1, { pending_create: { since: '2026-11-25T10:00:00.000Z', body_hash: 'h', status: 'unknown' } });
    expect(buildPlan(docs(V1), stateOf([bare])).diagnostics[0]!.message).toBe(
      'a: a create for user "bot" was sent at 2026-11-25T10:00:00.000Z and its outcome is unknown; a session may exist that the state does not record, so nothing is sent for this manifest',
    );
  });

  test('the outcome-unknown finding names the reason, and its hint is a command that exists (import takes no --user-id)', () => {
    const entry: StateEntry = { ...A, session_id: '', body: null, pending_create: { since: '2026-11-25T10:00:00.000Z', body_hash: 'h', status: 'unknown', reason: 'the request timed out' } };
    const [d] = buildPlan(docs(V1), stateOf([entry])).diagnostics;
    expect(d!.message).toBe(
      'a: a create for user "bot" was sent at 2026-11-25T10:00:00.000Z and its outcome is unknown (the request timed out); a session may exist that the state does not record, so nothing is sent for this manifest',
    );
    expect(d!.hint).toBe(
      'look for a session of user "bot" created from 2026-11-25T10:00:00.000Z on; adopt it with `sessionctl import a trs_...`, or, if there is none, apply with --recreate-unknown to create it',
    );
  });

  test('--recreate-unknown over an intent without a session: a create that keeps the entry it will replace', () => {
    const intent: StateEntry = { ...A, session_id: '', body: null, pending_create: { since: 't', body_hash: 'h', status: 'unknown' } };
    const [item] = buildPlan(docs(V1), stateOf([intent]), { recreateUnknown: true }).items;
    expect([item!.action, item!.reason, item!.blocked, item!.recorded]).toStrictEqual(['create', 'not-applied', false, intent]);
  });

  test('a user change where the old entry has no body: one change line, user_id old -> new, at the manifest', () => {
    const old = { ...A, body: null };
    const [item] = buildPlan(docs(V1.replace('user_id: bot', 'user_id: bot-2')), stateOf([old])).items;
    expect([item!.action, item!.reason, item!.replaces]).toStrictEqual(['replace', 'user-changed', old]);
    expect(item!.changes).toStrictEqual([{ field: 'user_id', pointer: '/user_id', op: 'change', old: 'bot', new: 'bot-2', source: 'manifest', range: docs(V1)[0]!.locate('/user_id', { key: true }) }]);
  });

  test('a user change with other changes: every field change, from the old entry’s body', () => {
    const [item] = buildPlan(docs(V1.replace('user_id: bot', 'user_id: bot-2').replace('[gmail, slack]', '[gmail]')), stateOf([A])).items;
    expect(item!.changes.map((c) => [c.field, c.op, c.old, c.new])).toStrictEqual([
      ['toolkits.enable', 'change', ['gmail', 'slack'], ['gmail']],
      ['user_id', 'change', 'bot', 'bot-2'],
    ]);
  });

  test('only a session of the same manifest under another user is its old one: not another manifest, not a bare intent', () => {
    const other = applied(V1.replace('name: a', 'name: b'));
    expect(buildPlan(docs(V1), stateOf([other])).items.map((i) => [i.action, i.reason])).toStrictEqual([['create', 'not-applied']]);
    const intentOfAlice: StateEntry = { ...A, user_id: 'alice', session_id: '', pending_create: { since: 't', body_hash: 'h', status: 'in-flight' } };
    expect(buildPlan(docs(V1), stateOf([intentOfAlice])).items.map((i) => [i.action, i.reason])).toStrictEqual([['create', 'not-applied']]);
  });

  test('written differently, asking for the same: a no-op (a default spelled out)', () => {
    const spelled = `${V1}manage_connections:\n  enable: true\n`;
    expect(buildPlan(docs(spelled), stateOf([A])).items.map((i) => [i.action, i.reason, i.changes, i.patch])).toStrictEqual([['no-op', 'up-to-date', [], undefined]]);
  });

  test('a real change next to a spelled-out default is an update with both field changes', () => {
    const changed = `${V1.replace('[gmail, slack]', '[gmail]')}manage_connections:\n  enable: true\n`;
    const [item] = buildPlan(docs(changed), stateOf([A])).items;
    expect(item!.action).toBe('update');
    expect(item!.changes.map((c) => c.field)).toStrictEqual(['manage_connections', 'toolkits.enable']);
    expect(item!.patch).toStrictEqual({ toolkits: { enable: ['gmail'] }, manage_connections: { enable: true } });
  });

  test('custom tools added where there were none: replace', () => {
    const withTool = `${V1}experimental:\n  custom_tools:\n    - slug: LOCAL_X\n      name: X\n      description: d\n      input_schema: { type: object }\n`;
    const [item] = buildPlan(docs(withTool), stateOf([A])).items;
    expect([item!.action, item!.reason, item!.replaces]).toStrictEqual(['replace', 'custom-tools-changed', A]);
    expect(item!.changes.map((c) => [c.field, c.op])).toStrictEqual([['experimental', 'add']]);
  });

  test('an entry without a body whose hash differs: an update without field changes, the PATCH every declared field', () => {
    const entry = { ...A, body: null, body_hash: 'another' };
    const [item] = buildPlan(docs(V1), stateOf([entry])).items;
    expect([item!.action, item!.reason, item!.changes, item!.patch]).toStrictEqual(['update', 'config-changed', [], { toolkits: { enable: ['gmail', 'slack'] }, tags: ['readOnlyHint'] }]);
  });
});

describe('buildPlan: deletions and the prunable count', () => {
  const other = (name: string): StateEntry => applied(V1.replace('name: a', `name: ${name}`), { file: `m/${name}.yaml` });

  test('without --prune nor a count, nothing is looked at', () => {
    const plan = buildPlan(docs(V1), stateOf([applied(V1), other('b')]));
    expect([plan.deletions, plan.prunable]).toStrictEqual([[], 0]);
  });

  test('with --prune the deletions carry the entry, its file and the reason; the count is 0 (they are deletions)', () => {
    const b = other('b');
    const plan = buildPlan(docs(V1), stateOf([applied(V1), b]), { prune: { roots: ['/w/m'], cwd: CWD } });
    expect(plan.deletions).toStrictEqual([{ name: 'b', user_id: 'bot', session_id: 'trs_b', file: 'm/b.yaml', reason: 'manifest-removed', entry: b, also: [], leftovers: [] }]);
    expect(plan.prunable).toBe(0);
    expect(hasChanges(plan)).toBe(true);
    expect(countActions(plan)).toStrictEqual({ create: 0, update: 0, replace: 0, delete: 1, 'no-op': 1, unknown: 0 });
  });

  test('a deletion of an entry that names no file has file null', () => {
    const { file: _file, ...noFile } = other('b');
    expect(deletionOf(noFile, 'destroy')).toStrictEqual({ name: 'b', user_id: 'bot', session_id: 'trs_b', file: null, reason: 'destroy', entry: noFile, also: [], leftovers: [] });
  });

  test('each session once: entries of one session make one deletion; each left-over goes to the first that holds it, unless a deletion deletes it as its own', () => {
    const b = { ...other('b'), superseded: ['trs_x', 'trs_x', 'trs_b'] };
    const c = { ...other('c'), session_id: 'trs_b', superseded: ['trs_y', 'trs_x', 'trs_d'] };
    const d = { ...other('d'), superseded: ['trs_y', 'trs_z'] };
    const scope = { prune: { roots: ['/w/m'], cwd: CWD } };
    const plan = buildPlan(docs(V1), stateOf([applied(V1), b, c, d]), scope);
    expect(plan.deletions.map((x) => [x.name, x.session_id, x.entry, x.also, x.leftovers])).toStrictEqual([
      ['b', 'trs_b', b, [c], ['trs_x', 'trs_y']],
      ['d', 'trs_d', d, [], ['trs_z']],
    ]);
    expect(countActions(plan).delete).toBe(2);
    // Counted the same way without --prune: two sessions.
    expect(buildPlan(docs(V1), stateOf([applied(V1), b, c, d]), { countPrunable: scope.prune }).prunable).toBe(2);
  });

  test('the plan carries the state hash as read, and its own findings', () => {
    expect(buildPlan(docs(V1), stateOf([])).stateHash).toBe('');
    expect(buildPlan(docs(V1), stateOf([applied(V1)])).stateHash).toBe('h');
  });
});

describe('countActions and hasChanges', () => {
  test('one item of each action', () => {
    const v2 = V1.replace('[gmail, slack]', '[gmail]');
    const text = `${V1.replace('name: a', 'name: n')}---\n${v2}---\n${V1.replace('name: a', 'name: c')}---\n${V1.replace('name: a', 'name: r').replace('user_id: bot', 'user_id: bot-2')}`;
    const entries = [applied(V1.replace('name: a', 'name: n')), applied(V1), applied(V1.replace('name: a', 'name: r'))];
    const plan = buildPlan(docs(text), stateOf(entries));
    expect(plan.items.map((i) => [i.name, i.action])).toStrictEqual([
      ['n', 'no-op'],
      ['a', 'update'],
      ['c', 'create'],
      ['r', 'replace'],
    ]);
    expect(countActions(plan)).toStrictEqual({ create: 1, update: 1, replace: 1, delete: 0, 'no-op': 1, unknown: 0 });
    expect(formatCounts(countActions(plan))).toBe('1 to create, 1 to update, 1 to replace, 0 to delete, 1 no-op');
    expect(hasChanges(plan)).toBe(true);
    expect(hasChanges({ items: plan.items.slice(0, 1), deletions: [] })).toBe(false);
    expect(hasChanges({ items: plan.items.slice(1, 2), deletions: [] })).toBe(true);
    expect(hasChanges({ items: [], deletions: [] })).toBe(false);
  });

  test('an item whose session could not be read counts as unknown, not as a no-op, and is no change (apply sends nothing for it)', () => {
    const plan = buildPlan(docs(V1), stateOf([applied(V1)]));
    const unread = { ...plan, items: plan.items.map((i) => ({ ...i, action: 'unknown' as const, reason: 'unreadable' as const })) };
    expect(countActions(unread)).toStrictEqual({ create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, unknown: 1 });
    expect(formatCounts(countActions(unread))).toBe('0 to create, 0 to update, 0 to replace, 0 to delete, 0 no-op, 1 unknown');
    expect(hasChanges(unread)).toBe(false);
    // What an earlier replace left to delete waits too: nothing is sent for the item.
    expect(hasChanges({ ...unread, items: unread.items.map((i) => ({ ...i, cleanup: ['trs_old'] })) })).toBe(false);
  });
});

describe('manifestsHash: the exact digest', () => {
  test('SHA-256 of the rows [name, user, body hash] in canonical order', () => {
    const rows = [
      { name: 'b', user_id: 'u', body_hash: 'h2' },
      { name: 'a', user_id: 'v', body_hash: 'h1' },
      { name: 'a', user_id: 'u', body_hash: 'h3' },
    ];
    const expected = createHash('sha256').update('[["a","u","h3"],["a","v","h1"],["b","u","h2"]]').digest('hex');
    expect(manifestsHash(rows)).toBe(expected);
    expect(manifestsHash([])).toBe(createHash('sha256').update('[]').digest('hex'));
  });
});
