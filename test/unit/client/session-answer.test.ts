import { describe, expect, test } from 'vitest';
import { checkedSession } from '../../../src/client/session-answer.js';
import { ApiError } from '../../../src/client/errors.js';
import type { Session } from '../../../src/wire/session.js';

const call = { method: 'POST', path: '/api/v3/tool_router/session', status: 201 };
const session = (tools: unknown): Session => ({ session_id: 'trs_abc', mcp: { type: 'http', url: 'https://mcp.example/trs_abc' }, tool_router_tools: tools } as unknown as Session);

describe('checkedSession: the tool list', () => {
  test('names, an empty list or no list at all pass as they are', () => {
    for (const tools of [['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_MULTI_EXECUTE_TOOL'], [], undefined]) {
      expect(checkedSession(session(tools), call)).toStrictEqual(session(tools));
    }
  });

  test.each<[string, unknown, string]>([
    ['a NUL (which no jsonb holds)', ['COMPOSIO_SEARCH_TOOLS', 'A\u0000B'], 'its tool list: "A\\u0000B" holds a control character'],
    ['an escape sequence', ['A\u001b[2J'], 'its tool list: "A\\u001b[2J" holds a control character'],
    ['a newline', ['A\nB'], 'its tool list: "A\\nB" holds a control character'],
    ['a number in it', ['A', 7], 'its tool list holds 7, not a name'],
    ['an object instead of a list', { a: 1 }, 'its tool list {"a":1} is not a list'],
  ])('%s: a decode error, so a create of it is of unknown outcome', (_name, tools, problem) => {
    let caught: unknown;
    try {
      checkedSession(session(tools), call);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect([(caught as ApiError).kind, (caught as Error).message]).toEqual(['decode', `the service answered 201 with a session sessionctl refuses: ${problem}`]);
  });
});
