import { describe, expect, test } from 'vitest';
import { checkKeyedUrl, isLoopbackHost, normalizeBaseUrl } from '../../../src/client/base-url.js';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { thrown } from '../../helpers/rejection.js';

describe('normalizeBaseUrl: where the key may go', () => {
  test.each([
    ['https://backend.composio.dev', 'https://backend.composio.dev'],
    ['https://backend.composio.dev/', 'https://backend.composio.dev'],
    ['https://gw.example.com/composio/', 'https://gw.example.com/composio'],
    ['HTTPS://Backend.Composio.dev:443', 'https://backend.composio.dev'],
    ['http://localhost:4010', 'http://localhost:4010'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://127.1:4010', 'http://127.0.0.1:4010'],
    ['http://0x7f000001:4010', 'http://127.0.0.1:4010'],
    ['http://127.255.0.9', 'http://127.255.0.9'],
    ['http://[::1]:4010', 'http://[::1]:4010'],
  ])('accepts %s', (raw, expected) => {
    expect(normalizeBaseUrl(raw)).toBe(expected);
  });

  test.each([
    ['plain http to a public host', 'http://backend.composio.dev'],
    ['a loopback-looking public name', 'http://127.0.0.1.nip.io'],
    ['a private address', 'http://10.0.0.5:4010'],
    ['0.0.0.0 over http', 'http://0.0.0.0:4010'],
    ['0.0.0.0 over https', 'https://0.0.0.0'],
    ['userinfo', 'https://user:secret@backend.composio.dev'],
    ['a user name alone', 'https://user@backend.composio.dev'],
    ['another scheme', 'ftp://backend.composio.dev'],
    ['not a URL', 'backend.composio.dev'],
    ['a query', 'https://backend.composio.dev/?x=1'],
    ['a fragment', 'https://backend.composio.dev/#x'],
  ])('refuses %s', (_name, raw) => {
    expect(() => normalizeBaseUrl(raw)).toThrow(UsageError);
  });

  test.each([
    ['user and password', 'https://user:hunter2secret@example.com', 'hunter2secret'],
    ['a user name alone', 'https://hunter2secret@example.com', 'hunter2secret'],
    ['a password alone', 'https://:hunter2secret@example.com', 'hunter2secret'],
    ['userinfo on loopback http', 'http://user:hunter2secret@127.0.0.1:4010', 'hunter2secret'],
  ])('refuses userinfo (%s) without echoing it', (_name, raw, secret) => {
    const err = thrown(() => checkKeyedUrl(raw));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('--base-url must not contain a user name or password');
    expect(err.hint).toBe('the API key comes from COMPOSIO_API_KEY or --api-key-file');
    expect(`${err.message} ${err.hint ?? ''}`).not.toContain(secret);
  });
});

describe('isLoopbackHost', () => {
  test.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['[::1]', true],
    ['127.0.0.256', false],
    ['128.0.0.1', false],
    ['localhost.example.com', false],
    ['::1', false], // URL.hostname keeps the brackets
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
