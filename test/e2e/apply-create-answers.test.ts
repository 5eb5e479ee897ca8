import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';
import { rewritingProxy, type Rewrite, type RewritingProxy } from './answer-rewriting-proxy.js';

/**
 * Issue 29, item 2: every answer to a sent create is classified. Only the documented 201 with a
 * session, or a clear refusal (a 4xx; a 503 with Retry-After, answered before handling), settles
 * a create. Anything else may follow a create that happened: the run says so, keeps the intent,
 * and the next run creates nothing on its own. Today's bug: the intent was undone and the next
 * apply made a second session per user (2 users, 4 sessions, exit 0).
 */

const MANIFESTS = {
  'm/a.yaml': 'name: a\nuser_id: user-a\ntoolkits: [gmail]\n',
  'm/b.yaml': 'name: b\nuser_id: user-b\ntoolkits: [gmail]\n',
};
const CREATE = /^\/api\/v3(\.1)?\/tool_router\/session$/;
const envelope = (status: number, message: string): string => JSON.stringify({ error: { message, code: 10000 + status, status } });

let world: ApplyWorld | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await world?.close();
  proxy = undefined;
  world = undefined;
});

async function setUp(rewrite: Rewrite): Promise<{ w: ApplyWorld; p: RewritingProxy }> {
  world = await applyWorld(MANIFESTS);
  proxy = await rewritingProxy(world.emulator.url);
  proxy.rules.push({ method: 'POST', path: CREATE, rewrite });
  return { w: world, p: proxy };
}

async function sessions(w: ApplyWorld): Promise<number> {
  return ((await w.admin('GET', 'counts')) as { sessions: number }).sessions;
}

type Entry = { name: string; session_id: string; pending_create?: { status: string; reason?: string } };

/** The answers that may follow a create that happened: the issue's, then new ones of the class. */
const unknownAnswers: Array<[string, Rewrite['answer'], string]> = [
  ['200 instead of 201, with the session', { status: 200, echo: true }, 'the service answered 200 (expected HTTP 201, got 200) where it documents 201'],
  ['500', { status: 500, raw: envelope(500, 'Internal error') }, 'the service answered 500 (Internal error) where it documents 201'],
  ['502 from a gateway (HTML)', { status: 502, raw: '<html><body>Bad Gateway</body></html>' }, 'the service answered 502 (<html><body>Bad Gateway</body></html>) where it documents 201'],
  ['504 with no body', { status: 504 }, 'the service answered 504 (HTTP 504 with no error message) where it documents 201'],
  ['201 with a body that does not parse', { status: 201, raw: '{"session_id": "trs_abc", "mcp": {' }, 'the service answered 201 but the body is not JSON; the request was processed, its result is unknown'],
  ['a reset after the create was handled', { reset: true }, 'after the request was sent, so the service may or may not have processed it'],
  // New variants of the same class.
  ['202 Accepted', { status: 202, echo: true }, 'the service answered 202 (expected HTTP 201, got 202) where it documents 201'],
  ['204 with no content', { status: 204 }, 'the service answered 204 (expected HTTP 201, got 204) where it documents 201'],
  ['303 See Other (done, look elsewhere)', { status: 303, headers: { location: '/api/v3/tool_router/session/trs_elsewhere' } }, 'the outcome is unknown: the service answered 303 with a redirect'],
  ['503 without Retry-After', { status: 503, raw: envelope(503, 'Service unavailable') }, 'the service answered 503 (Service unavailable) where it documents 201'],
  ['507 Insufficient Storage', { status: 507, raw: envelope(507, 'Insufficient storage') }, 'the service answered 507 (Insufficient storage) where it documents 201'],
  ['201 with a JSON array', { status: 201, raw: '[{"session_id":"trs_x"}]' }, 'the service answered 201 but the body is not a JSON object; the request was processed, its result is unknown'],
  ['201 with an object that is not a session', { status: 201, raw: '{"ok":true}' }, 'the service answered 201 with a session sessionctl refuses: undefined is not a session id'],
  ['503 with a Retry-After that cannot be read', { status: 503, headers: { 'retry-after': 'soon' }, raw: envelope(503, 'busy') }, 'the service answered 503 (busy) where it documents 201'],
];

describe('a create answered with anything but its 201 or a clear refusal: outcome unknown, never a second session', () => {
  test.each(unknownAnswers)('%s', async (_name, answer, says) => {
    const { w, p } = await setUp({ forward: true, answer });
    const first = await w.run(['apply', 'm', '--concurrency', '1', '--format', 'json'], { COMPOSIO_BASE_URL: p.url });
    expect(first.exitCode).toBe(3);
    const report = JSON.parse(first.stdout);
    expect(report.applied.items.map((i: { name: string; outcome: string }) => [i.name, i.outcome])).toEqual([
      ['a', 'outcome-unknown'],
      ['b', 'outcome-unknown'],
    ]);
    const diagnostics = report.diagnostics as Array<{ code: string; file: string; message: string }>;
    expect(diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['apply/outcome-unknown', 'm/a.yaml'],
      ['apply/outcome-unknown', 'm/b.yaml'],
    ]);
    for (const d of diagnostics) expect(d.message).toContain(says);
    // The service did create both; the state keeps both intents as unknown, with no session id.
    expect(await sessions(w)).toBe(2);
    const state = (await w.state()) as unknown as { sessions: Entry[] };
    expect(state.sessions.map((e) => [e.name, e.session_id, e.pending_create?.status])).toEqual([
      ['a', '', 'unknown'],
      ['b', '', 'unknown'],
    ]);

    // The next run, against an honest service, creates nothing on its own: it says what is unknown.
    p.rules.length = 0;
    const again = await w.run(['apply', 'm', '--format', 'json'], { COMPOSIO_BASE_URL: p.url });
    expect(again.exitCode).toBe(1);
    expect(JSON.parse(again.stdout).diagnostics.map((d: { code: string; file: string }) => [d.code, d.file])).toEqual([
      ['state/outcome-unknown', 'm/a.yaml'],
      ['state/outcome-unknown', 'm/b.yaml'],
    ]);
    expect(await sessions(w)).toBe(2);
    expect(p.seen.filter((s) => s.startsWith('POST ')).length).toBe(2);
  });
});

/** Clear refusals, made before anything was handled: nothing was created, the next run creates each once. */
const refusals: Array<[string, Rewrite['answer']]> = [
  ['400', { status: 400, raw: envelope(400, 'Bad request') }],
  ['409', { status: 409, raw: envelope(409, 'Conflict') }],
  ['422', { status: 422, raw: envelope(422, 'Unprocessable') }],
  ['429 asking for a wait past the limit', { status: 429, headers: { 'retry-after': '9999' }, raw: envelope(429, 'Slow down') }],
  ['503 with a Retry-After past the limit', { status: 503, headers: { 'retry-after': '9999' }, raw: envelope(503, 'Overloaded') }],
];

describe('a clear refusal: failed, the intent undone, and the next run creates each session once', () => {
  test.each(refusals)('%s', async (_name, answer) => {
    const { w, p } = await setUp({ forward: false, answer });
    const first = await w.run(['apply', 'm', '--concurrency', '1', '--format', 'json'], { COMPOSIO_BASE_URL: p.url });
    expect(first.exitCode).toBe(3);
    const report = JSON.parse(first.stdout);
    expect(report.applied.items.map((i: { outcome: string }) => i.outcome)).toEqual(['failed', 'failed']);
    expect(report.diagnostics.map((d: { code: string }) => d.code)).toEqual(['apply/create-failed', 'apply/create-failed']);
    expect(await sessions(w)).toBe(0);
    expect(((await w.state()) as unknown as { sessions: Entry[] }).sessions).toEqual([]);
    p.rules.length = 0;
    const again = await w.run(['apply', 'm', '--format', 'json'], { COMPOSIO_BASE_URL: p.url });
    expect(again.exitCode).toBe(0);
    expect(await sessions(w)).toBe(2);
  });
});
