import { afterEach, describe, expect, test } from 'vitest';
import { createClient, type SessionClient } from '../../src/client/client.js';
import { mayHaveTakenEffect } from '../../src/client/errors.js';
import { apiFailure } from '../helpers/rejection.js';
import { startFaultServer, type Behaviour, type FaultServer } from './client-fault-server.js';

/**
 * Issue 29, item 2, for every call that changes state: one classification of its answers. Only
 * the documented success or a clear refusal (a 4xx; a 503 with Retry-After) settles the call; any
 * other answer may follow the work, so it is `outcome-unknown` (sent once, never retried), and
 * `mayHaveTakenEffect` says so. A safe call keeps its retries and its plain `http` error.
 */

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function setUp(): Promise<{ s: FaultServer; c: SessionClient; sleeps: number[] }> {
  const s = await startFaultServer();
  open.push(s);
  const sleeps: number[] = [];
  const c = createClient({ baseUrl: s.url, apiKey: 'ak_unsafe_answers_1', timeouts: { attemptMs: 5_000 }, retries: { random: () => 0.5, sleep: async (ms) => void sleeps.push(ms) } });
  open.push(c);
  return { s, c, sleeps };
}

/** Every unsafe call of the client, with the status it documents. */
const unsafeCalls: Array<[string, number, (c: SessionClient) => Promise<unknown>]> = [
  ['create session', 201, (c) => c.createSession({ user_id: 'u1' })],
  ['update session', 200, (c) => c.updateSession('trs_x', { tags: null })],
  ['delete session', 200, (c) => c.deleteSession('trs_x')],
  ['attach session', 200, (c) => c.attachSession('trs_x')],
  ['link', 201, (c) => c.link('trs_x', { toolkit: 'github' })],
  ['execute', 200, (c) => c.execute('trs_x', { tool_slug: 'GITHUB_STAR' })],
  ['execute meta tool', 200, (c) => c.executeMeta('trs_x', { slug: 'COMPOSIO_SEARCH_TOOLS', arguments: {} } as never)],
  ['proxy execute', 200, (c) => c.proxyExecute('trs_x', { toolkit_slug: 'github', endpoint: '/user', method: 'GET' } as never)],
  ['mount upload url', 201, (c) => c.mountUploadUrl('trs_x', 'a.txt')],
];

const envelope = (status: number, message: string): unknown => ({ error: { message, code: 10000 + status, status } });

/** Answers that may follow the work, whatever the call. */
const mayHaveWorked: Array<[string, (documented: number) => Behaviour]> = [
  ['500', () => ({ type: 'respond', status: 500, body: envelope(500, 'boom') })],
  ['502 (HTML)', () => ({ type: 'respond', status: 502, raw: '<html>Bad Gateway</html>' })],
  ['504', () => ({ type: 'respond', status: 504 })],
  ['another success code', (d) => ({ type: 'respond', status: d === 201 ? 200 : 201, body: { ok: true } })],
  ['303 See Other', () => ({ type: 'respond', status: 303, headers: { location: '/elsewhere' } })],
  ['503 without Retry-After', () => ({ type: 'respond', status: 503, body: envelope(503, 'down') })],
  ['the documented status with a body that does not parse', (d) => ({ type: 'malformed', status: d })],
  ['a reset after the body was read', () => ({ type: 'reset-after-body' })],
];

describe('an answer that may follow the work: outcome unknown, sent once', () => {
  for (const [call, documented, run] of unsafeCalls) {
    test.each(mayHaveWorked)(`${call}: %s`, async (_name, behaviour) => {
      const { s, c, sleeps } = await setUp();
      s.script(behaviour(documented));
      const err = await apiFailure(run(c));
      expect(mayHaveTakenEffect(err)).toBe(true);
      expect(['outcome-unknown', 'decode']).toContain(err.kind);
      expect(err.message).toMatch(/outcome is unknown|its result is unknown/);
      expect(s.hits).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });
  }
});

/** Clear refusals: nothing was done. */
const refusals: Array<[string, Behaviour[]]> = [
  ['400', [{ type: 'respond', status: 400, body: envelope(400, 'bad') }]],
  ['404', [{ type: 'respond', status: 404, body: envelope(404, 'no such session') }]],
  ['422', [{ type: 'respond', status: 422, body: envelope(422, 'unprocessable') }]],
  ['429 past the wait limit', [{ type: 'respond', status: 429, headers: { 'retry-after': '9999' }, body: envelope(429, 'slow down') }]],
  ['503 with a Retry-After past the limit', [{ type: 'respond', status: 503, headers: { 'retry-after': '9999' }, body: envelope(503, 'overloaded') }]],
];

describe('a clear refusal: an http error, nothing taken effect', () => {
  for (const [call, , run] of unsafeCalls) {
    test.each(refusals)(`${call}: %s`, async (name, behaviours) => {
      const { s, c } = await setUp();
      s.script(...behaviours);
      const err = await apiFailure(run(c));
      expect(err.kind).toBe('http');
      expect(err.status).toBe(Number(name.slice(0, 3)));
      expect(mayHaveTakenEffect(err)).toBe(false);
    });
  }
});

describe('safe calls keep their own policy', () => {
  test('a 500 on a read is retried, then a plain http error', async () => {
    const { s, c, sleeps } = await setUp();
    s.fallback = { type: 'respond', status: 500, body: envelope(500, 'boom') };
    const err = await apiFailure(c.getSession('trs_x'));
    expect(err).toMatchObject({ kind: 'http', status: 500, message: 'boom', attempts: 4 });
    expect(sleeps).toHaveLength(3);
  });

  test('a redirect to a read is a redirect, never followed', async () => {
    const { s, c } = await setUp();
    s.script({ type: 'respond', status: 307, headers: { location: '/elsewhere' } });
    const err = await apiFailure(c.getSession('trs_x'));
    expect(err.kind).toBe('redirect');
    expect(mayHaveTakenEffect(err)).toBe(false);
    expect(s.hits).toHaveLength(1);
  });
});
