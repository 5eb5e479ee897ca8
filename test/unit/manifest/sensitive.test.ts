import { describe, expect, test } from 'vitest';
import { parseManifestText } from '../../../src/manifest/load.js';
import { isSecretLooking, isSecretName } from '../../../src/manifest/secret-shapes.js';
import { interpolate } from '../../../src/manifest/interpolate.js';
import { sensitiveValues, sensitivityOf } from '../../../src/manifest/sensitive.js';

const GITHUB_TOKEN_VALUE = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

describe('the name test', () => {
  test.each([
    ['HOOK_TOKEN', true],
    ['STRIPE_SECRET', true],
    ['COMPOSIO_API_KEY', true],
    ['DB_PASSWORD_FILE', true],
    ['MY_PASSWD', true],
    ['GCP_CREDENTIALS_JSON', true],
    ['BASIC_AUTH', true],
    ['TOKEN_URL', true],
    ['hook-token', true],
    ['SUPPORT_USER_ID', false],
    ['CALLBACK_URL', false],
    ['KEYBOARD_LAYOUT', true],
    ['MONKEY', false],
    ['AUTHOR', false],
  ])('%s -> %s', (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });

  test('isSecretLooking: a known format whatever the key, or any value under a secret name', () => {
    expect(isSecretLooking('callback_url', `https://x.example/?t=${GITHUB_TOKEN_VALUE}`)).toBe(true);
    expect(isSecretLooking('api_key', 'short')).toBe(true);
    expect(isSecretLooking('callback_url', 'https://example.com/done')).toBe(false);
    expect(isSecretLooking(undefined, 'plain')).toBe(false);
    expect(isSecretLooking('token', '')).toBe(false);
  });
});

describe('sensitivityOf one expanded scalar', () => {
  const of = (text: string, env: Record<string, string>, declared: string[] = []) => sensitivityOf(interpolate(text, env), new Set(declared));

  test.each([
    ['a variable named like a secret', 'https://h.example/cb?t=${HOOK_TOKEN}', { HOOK_TOKEN: 'abc' }, [], ['HOOK_TOKEN']],
    ['a declared variable', '${PLAIN}', { PLAIN: 'abc' }, ['PLAIN'], ['PLAIN']],
    ['a value with a known format', 'u-${USER}', { USER: GITHUB_TOKEN_VALUE }, [], ['USER']],
    ['only the sensitive variables are named', '${HOST}/cb?t=${HOOK_TOKEN}', { HOST: 'https://h.example', HOOK_TOKEN: 'abc' }, [], ['HOOK_TOKEN']],
    ['a format the expansion completes names every variable', 'ghp_${A}${B}', { A: 'abcdefghijklmnopq', B: 'rstuvwxyz0123456789' }, [], ['A', 'B']],
  ])('%s', (_name, text, env, declared, variables) => {
    expect(of(text, env, declared)?.variables).toEqual(variables);
  });

  test.each([
    ['a plain variable', '${USER_ID}', { USER_ID: 'alice' }],
    ['a secret-named variable that is unset, its default used', '${HOOK_TOKEN:-none}', {}],
    ['no variable at all', 'literal', {}],
  ])('not sensitive: %s', (_name, text, env) => {
    expect(of(text, env)).toBeUndefined();
  });

  test('the values to mask: the whole scalar, each sensitive variable, and a known format inside either', () => {
    const s = of('https://h.example/cb?t=${CALLBACK}', { CALLBACK: `x-${GITHUB_TOKEN_VALUE}` })!;
    expect(sensitiveValues([s]).map((v) => v.value)).toEqual([`https://h.example/cb?t=x-${GITHUB_TOKEN_VALUE}`, GITHUB_TOKEN_VALUE, `x-${GITHUB_TOKEN_VALUE}`, GITHUB_TOKEN_VALUE]);
  });
});

describe('the loader records where sensitive values are', () => {
  test('by pointer, aliases included; keys and literals are never sensitive', () => {
    const text = [
      'name: a',
      'user_id: &u ${USER_TOKEN}',
      'manage_connections:',
      '  callback_url: "https://h.example/cb?t=${HOOK_TOKEN}"',
      'experimental:',
      '  custom_tools:',
      '    - { slug: t, name: *u, description: "plain ${PLAIN}", input_schema: { type: object, properties: {} } }',
      '',
    ].join('\n');
    const parsed = parseManifestText(text, '/w/a.yaml', { env: { USER_TOKEN: 'u-42', HOOK_TOKEN: 'abc', PLAIN: 'p' } });
    expect(parsed.diagnostics).toEqual([]);
    const doc = parsed.documents[0]!;
    expect([...doc.sensitive!.keys()].sort()).toEqual(['/experimental/custom_tools/0/name', '/manage_connections/callback_url', '/user_id']);
    expect(doc.sensitive!.get('/manage_connections/callback_url')).toEqual({ value: 'https://h.example/cb?t=abc', variables: ['HOOK_TOKEN'], parts: [{ name: 'HOOK_TOKEN', value: 'abc' }] });
  });

  test('declared names make plain variables sensitive; without any, the document has none', () => {
    const text = 'name: a\nuser_id: ${USER_ID}\n';
    expect(parseManifestText(text, '/w/a.yaml', { env: { USER_ID: 'alice' } }).documents[0]!.sensitive).toBeUndefined();
    expect([...parseManifestText(text, '/w/a.yaml', { env: { USER_ID: 'alice' }, sensitive: ['USER_ID'] }).documents[0]!.sensitive!.keys()]).toEqual(['/user_id']);
  });

  test('a finding that quotes a sensitive value names its variable instead, even cut short', async () => {
    const { validateDocuments } = await import('../../../src/validate/index.js');
    const value = 'an-enormous-sandbox-size-that-no-schema-allows-and-a-message-cuts';
    const doc = parseManifestText('name: a\nuser_id: u\nworkbench: { sandbox_size: "${SIZE_SECRET}" }\n', '/w/a.yaml', { env: { SIZE_SECRET: value } }).documents[0]!;
    const found = validateDocuments([doc]);
    expect(found.map((d) => d.code)).toEqual(['schema/enum']);
    expect(found[0]!.message).toContain('(sensitive: SIZE_SECRET)');
    expect(JSON.stringify(found)).not.toContain(value.slice(0, 12));
  });
});
