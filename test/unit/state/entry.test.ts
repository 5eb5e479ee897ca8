import { describe, expect, test } from 'vitest';
import { InputError } from '../../../src/diagnostics/errors.js';
import { compareEntries, hasSession, jsonErrorPlace, parseState, type StateEntry } from '../../../src/state/entry.js';

/**
 * The state document's entries checked field by field (the exact message of each refusal, in the
 * state's wording and in `state push`'s), version 1 upgraded in memory, and the order of entries.
 */

const base = { name: 'a', user_id: 'u', session_id: 'trs_s', mcp_url: 'm', tool_router_tools: ['T'], body_hash: 'h', applied_at: '2026-03-01T10:00:00.000Z' };
const doc = (session: Record<string, unknown>, version = 2) => JSON.stringify({ version, sessions: [session] });

/** The InputError parseState throws: message and file. */
function refusal(text: string, pushed = false): [string, string | undefined] {
  let err: unknown;
  try {
    parseState(text, 'st.json', { pushed });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InputError);
  return [(err as InputError).message, (err as InputError).file];
}

const inState = (why: string) =>
  `the state is not valid (${why}); it was left untouched. Restore it from a backup, or move it aside to start over (sessions it recorded are then unknown to sessionctl).`;

describe('parseState: each field checked', () => {
  test.each([
    ['config_version not an integer', { ...base, config_version: 1.5 }, 'sessions[0].config_version is not an integer'],
    ['config_version a string', { ...base, config_version: '1' }, 'sessions[0].config_version is not an integer'],
    ['body a list', { ...base, body: [] }, 'sessions[0].body is not an object'],
    ['body a string', { ...base, body: 'x' }, 'sessions[0].body is not an object'],
    ['file not a string', { ...base, file: 3 }, 'sessions[0].file is not a string'],
    ['a pending create without since', { ...base, pending_create: { body_hash: 'h', status: 'unknown' } }, 'sessions[0].pending_create needs "since" and "body_hash"'],
    ['a pending create without body_hash', { ...base, pending_create: { since: 't', status: 'unknown' } }, 'sessions[0].pending_create needs "since" and "body_hash"'],
    ['a pending create that is null', { ...base, pending_create: null }, 'sessions[0].pending_create needs "since" and "body_hash"'],
    ['a pending create of another status', { ...base, pending_create: { since: 't', body_hash: 'h', status: 'done' } }, 'sessions[0].pending_create.status is not "in-flight" or "unknown"'],
    ['superseded not a list', { ...base, superseded: 's1' }, 'sessions[0].superseded is not a list of session ids'],
    ['superseded with a number', { ...base, superseded: ['s1', 2] }, 'sessions[0].superseded is not a list of session ids'],
    ['a session that is a list', [], 'sessions[0] is not an object'],
    ['a session that is null', null, 'sessions[0] is not an object'],
    ['a session that is a number', 5, 'sessions[0] is not an object'],
    ['tools not a list', { ...base, tool_router_tools: 'T' }, 'sessions[0].tool_router_tools is not a list of strings'],
  ])('%s', (_name, session, why) => {
    expect(refusal(doc(session as Record<string, unknown>))).toEqual([inState(why), 'st.json']);
  });

  test('in a pushed document the message says what to push instead', () => {
    expect(refusal(doc({ ...base, body: [] }), true)).toEqual([
      'this is not a state document that sessionctl can push (sessions[0].body is not an object); nothing was pushed. Push the output of `sessionctl state pull`, or a state file.',
      'st.json',
    ]);
  });

  test('a newer format version, or none that is a number', () => {
    expect(refusal('{"version": 4, "sessions": []}')).toEqual(['the state has format version 4; this sessionctl reads versions 1 to 3. Use a newer sessionctl.', 'st.json']);
    expect(refusal('{"version": "2", "sessions": []}')).toEqual([inState('no "version"'), 'st.json']);
    expect(refusal('null')).toEqual([inState('not a JSON object'), 'st.json']);
    expect(refusal('5')).toEqual([inState('not a JSON object'), 'st.json']);
  });

  test('version 1 (no config_version, no body) is read in the current shape; optional fields only when present', () => {
    expect(parseState(doc(base, 1), 'st.json')).toStrictEqual([{ ...base, config_version: null, body: null }]);
    const full = { ...base, config_version: 3, body: { k: 1 }, file: 'm/a.yaml', pending_create: { since: 't', body_hash: 'h2', status: 'in-flight', reason: 'why', extra: 1 }, superseded: ['trs_s0'] };
    expect(parseState(doc(full), 'st.json')).toStrictEqual([{ ...full, pending_create: { since: 't', body_hash: 'h2', status: 'in-flight', reason: 'why' } }]);
    const noReason = { ...base, pending_create: { since: 't', body_hash: 'h2', status: 'unknown', reason: 5 }, superseded: [] };
    expect(parseState(doc(noReason), 'st.json')).toStrictEqual([{ ...base, config_version: null, body: null, pending_create: { since: 't', body_hash: 'h2', status: 'unknown' } }]);
  });
});

describe('jsonErrorPlace', () => {
  test("Node 22's line and column, Node 20's position (on the first line and a later one), a cut-off text, anything else", () => {
    expect(jsonErrorPlace('', "Unexpected token (line 4 column 7)")).toBe(' at line 4, column 7');
    expect(jsonErrorPlace('', "Unexpected token (line 12 column 34)")).toBe(' at line 12, column 34');
    expect(jsonErrorPlace('{"a" 1}', 'Expected \':\' after property name in JSON at position 5')).toBe(' at line 1, column 6');
    expect(jsonErrorPlace('{\n"a":\n 1 2}', 'Expected \',\' or \'}\' after property value in JSON at position 10')).toBe(' at line 3, column 4');
    expect(jsonErrorPlace('{', 'Unexpected end of JSON input')).toBe(' (it ends too early: cut off?)');
    expect(jsonErrorPlace('x', 'Unexpected token x')).toBe(': Unexpected token x');
  });
});

describe('the order of entries', () => {
  const e = (name: string, user_id: string) => ({ name, user_id }) as StateEntry;
  test('by name, then user id, in code unit order; equal keys compare equal', () => {
    const sorted = [e('b', 'u1'), e('a', 'u2'), e('B', 'u1'), e('a', 'U1'), e('a', 'u1')].sort(compareEntries);
    expect(sorted.map((x) => `${x.name}/${x.user_id}`)).toEqual(['B/u1', 'a/U1', 'a/u1', 'a/u2', 'b/u1']);
    expect([compareEntries(e('a', 'u'), e('a', 'u')), compareEntries(e('a', 'u'), e('a', 'v')), compareEntries(e('a', 'v'), e('a', 'u'))]).toEqual([0, -1, 1]);
    expect([compareEntries(e('a', 'z'), e('b', 'a')), compareEntries(e('b', 'a'), e('a', 'z'))]).toEqual([-1, 1]);
  });

  test('an entry names a session unless only its create intent is recorded', () => {
    expect([hasSession({ session_id: 'trs_1' } as StateEntry), hasSession({ session_id: '' } as StateEntry)]).toEqual([true, false]);
  });
});
