import { describe, expect, test } from 'vitest';
import { bodyHash, canonicalJson, requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';

describe('requestBody', () => {
  test.each<[string, ManifestData, unknown]>([
    ['drops name', { name: 'a', user_id: 'u1' }, { user_id: 'u1' }],
    ['bare toolkits list is an allowlist', { user_id: 'u', toolkits: ['gmail', 'slack'] }, { user_id: 'u', toolkits: { enable: ['gmail', 'slack'] } }],
    ['object toolkits pass through', { user_id: 'u', toolkits: { disable: ['gmail'] } }, { user_id: 'u', toolkits: { disable: ['gmail'] } }],
    [
      'bare tools list is enable; other variants pass through',
      { user_id: 'u', tools: { gmail: ['GMAIL_SEND_EMAIL'], slack: { tags: ['readOnlyHint'] }, github: { disable: ['X'] } } },
      { user_id: 'u', tools: { gmail: { enable: ['GMAIL_SEND_EMAIL'] }, slack: { tags: ['readOnlyHint'] }, github: { disable: ['X'] } } },
    ],
    ['tags array kept (the wire accepts it)', { user_id: 'u', tags: ['readOnlyHint'] }, { user_id: 'u', tags: ['readOnlyHint'] }],
    [
      'other blocks verbatim',
      { user_id: 'u', workbench: { enable: false }, experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } } },
      { user_id: 'u', workbench: { enable: false }, experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } } },
    ],
  ])('%s', (_name, manifest, body) => {
    expect(requestBody(manifest)).toEqual(body);
  });

  test('keeps the manifest key order', () => {
    const body = requestBody({ name: 'n', workbench: { enable: false }, user_id: 'u', toolkits: ['a'] });
    expect(Object.keys(body)).toEqual(['workbench', 'user_id', 'toolkits']);
  });

  test('does not alias the manifest lists', () => {
    const manifest: ManifestData = { user_id: 'u', toolkits: ['a'] };
    const body = requestBody(manifest) as unknown as { toolkits: { enable: string[] } };
    body.toolkits.enable.push('b');
    expect(manifest.toolkits).toEqual(['a']);
  });
});

describe('bodyHash', () => {
  test('ignores key order at every level', () => {
    expect(bodyHash({ a: 1, b: { c: 2, d: 3 } })).toBe(bodyHash({ b: { d: 3, c: 2 }, a: 1 }));
  });
  test('list order and values count', () => {
    expect(bodyHash({ a: [1, 2] })).not.toBe(bodyHash({ a: [2, 1] }));
    expect(bodyHash({ user_id: 'alice' })).not.toBe(bodyHash({ user_id: 'bob' }));
  });
  test('is the SHA-256 of the canonical JSON', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    expect(bodyHash({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});
