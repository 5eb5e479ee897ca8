import { describe, expect, test } from 'vitest';
import { ApiError, parseErrorBody } from '../../../src/client/errors.js';
import { SessionctlError } from '../../../src/diagnostics/errors.js';

describe('parseErrorBody', () => {
  test('the full envelope', () => {
    const body = JSON.stringify({
      error: {
        message: 'Invalid request',
        code: 10400,
        slug: 'HTTP_BadRequest',
        status: 400,
        request_id: 'req_123',
        suggested_fix: 'Check the payload',
        errors: ['Error in payload.toolkits: Invalid input'],
        extra_field: { kept: false },
      },
    });
    expect(parseErrorBody(body)).toEqual({
      message: 'Invalid request',
      code: 10400,
      slug: 'HTTP_BadRequest',
      status: 400,
      request_id: 'req_123',
      suggested_fix: 'Check the payload',
      errors: ['Error in payload.toolkits: Invalid input'],
    });
  });

  test('an envelope without status (observed on a real 400)', () => {
    expect(parseErrorBody('{"error":{"message":"m","code":4305,"slug":"ToolRouterV2_InvalidToolkitSlugs"}}')).toEqual({
      message: 'm',
      code: 4305,
      slug: 'ToolRouterV2_InvalidToolkitSlugs',
    });
  });

  test("the rate limiter's bare {message}", () => {
    expect(parseErrorBody('{"message":"Rate limit exceeded. Limit: 2000 requests per 1 minutes"}')).toEqual({
      message: 'Rate limit exceeded. Limit: 2000 requests per 1 minutes',
    });
  });

  test('fields of the wrong type are dropped, a numeric string code kept', () => {
    expect(parseErrorBody('{"error":{"message":42,"code":"10401","slug":["x"],"errors":"nope"}}')).toEqual({ code: 10401 });
  });

  test('non-string validation details are kept as JSON', () => {
    expect(parseErrorBody('{"error":{"message":"m","errors":[{"path":"a"}]}}')).toEqual({ message: 'm', errors: ['{"path":"a"}'] });
  });

  test('an HTML page from a proxy becomes a short excerpt', () => {
    const parsed = parseErrorBody(`<html>\n<body>Bad Gateway ${'x'.repeat(1000)}</body></html>`);
    expect(parsed.message?.startsWith('<html> <body>Bad Gateway')).toBe(true);
    expect(parsed.message?.length).toBe(300);
  });

  test.each(['', '   ', 'null', '[]', '"text"'])('%j gives no fields', (text) => {
    const parsed = parseErrorBody(text);
    expect(parsed.slug).toBeUndefined();
    expect(parsed.code).toBeUndefined();
  });
});

describe('ApiError', () => {
  const err = new ApiError('Session not found', {
    kind: 'http',
    method: 'GET',
    path: '/api/v3/tool_router/session/trs_x',
    status: 404,
    slug: 'ToolRouterV2_SessionNotFound',
    code: 4404,
    request_id: 'req_9',
    suggested_fix: 'check the id',
    errors: ['a', 'b'],
    attempts: 2,
    cause: Object.assign(new Error('inner'), { headers: { 'x-api-key': 'never' } }),
  });

  test('is a SessionctlError', () => {
    expect(err).toBeInstanceOf(SessionctlError);
    expect(err.name).toBe('ApiError');
  });

  test('describe() gives slug, message, request id and fix, no stack', () => {
    expect(err.describe()).toEqual([
      'error: GET /api/v3/tool_router/session/trs_x failed (HTTP 404): Session not found',
      'slug: ToolRouterV2_SessionNotFound (code 4404)',
      '  - a',
      '  - b',
      'request id: req_9',
      'hint: check the id',
      'attempts: 2',
    ]);
  });

  test('JSON carries the envelope fields and not the cause', () => {
    const json = JSON.stringify(err);
    expect(JSON.parse(json)).toEqual({
      name: 'ApiError',
      kind: 'http',
      message: 'Session not found',
      method: 'GET',
      path: '/api/v3/tool_router/session/trs_x',
      status: 404,
      slug: 'ToolRouterV2_SessionNotFound',
      code: 4404,
      request_id: 'req_9',
      suggested_fix: 'check the id',
      errors: ['a', 'b'],
      attempts: 2,
    });
    expect(json).not.toContain('never');
  });
});
