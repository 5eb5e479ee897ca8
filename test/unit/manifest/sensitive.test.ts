import { describe, expect, test } from 'vitest';
import { parseManifestText } from '../../../src/manifest/load.js';
import { isSecretLooking, isSecretName } from '../../../src/manifest/secret-shapes.js';
import { interpolate } from '../../../src/manifest/interpolate.js';
import { declaredValues, documentMasker, isSensitiveVariable, locateSensitive, sensitiveValues, sensitivityOf, withSecretInside, type SensitiveScalar } from '../../../src/manifest/sensitive.js';

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

describe('the pieces, exactly', () => {
  const scalar = (value: string, variables: string[], parts: Array<{ name: string; value: string }> = []): SensitiveScalar => ({ value, variables, parts });

  test('isSensitiveVariable: declared, named like a secret, or a known format, and nothing else', () => {
    expect(isSensitiveVariable('PLAIN', 'abc', new Set(['PLAIN']))).toBe(true);
    expect(isSensitiveVariable('HOOK_TOKEN', 'abc', new Set())).toBe(true);
    expect(isSensitiveVariable('PLAIN', GITHUB_TOKEN_VALUE, new Set())).toBe(true);
    expect(isSensitiveVariable('PLAIN', 'abc', new Set(['OTHER']))).toBe(false);
  });

  test('sensitivityOf keeps the parts of the sensitive variables only, with their values', () => {
    expect(sensitivityOf(interpolate('${HOST}/cb?t=${HOOK_TOKEN}', { HOST: 'https://h.example', HOOK_TOKEN: 'abc' }), new Set())).toEqual({
      value: 'https://h.example/cb?t=abc',
      variables: ['HOOK_TOKEN'],
      parts: [{ name: 'HOOK_TOKEN', value: 'abc' }],
    });
    expect(sensitivityOf(interpolate('ghp_${A}', { A: 'abcdefghijklmnopqrstuvwxyz0123456789' }), new Set())).toEqual({
      value: GITHUB_TOKEN_VALUE,
      variables: ['A'],
      parts: [{ name: 'A', value: 'abcdefghijklmnopqrstuvwxyz0123456789' }],
    });
    expect(sensitivityOf({ value: GITHUB_TOKEN_VALUE, used: [] }, new Set())).toBeUndefined();
  });

  test('locateSensitive: every place holding a value, by pointer, keys escaped', () => {
    const s = scalar('s3cret-value', ['HOOK_TOKEN']);
    const t = scalar('other-secret', ['B_TOKEN']);
    const data = { a: 's3cret-value', 'x/y~z': ['plain', 'other-secret', { deep: 's3cret-value' }], n: null, k: 3 };
    expect([...locateSensitive(data, [s, t])]).toEqual([
      ['/a', s],
      ['/x~1y~0z/1', t],
      ['/x~1y~0z/2/deep', s],
    ]);
    expect([...locateSensitive('s3cret-value', [s])]).toEqual([['', s]]);
    expect(locateSensitive(data, []).size).toBe(0);
    expect([...locateSensitive({ gone: undefined, n: 1, b: true, a: 's3cret-value' }, [s])]).toEqual([['/a', s]]);
  });

  test('withSecretInside: a known secret inside a value is a value of its own, the same one is not', () => {
    expect(withSecretInside(`https://x.example/?t=${GITHUB_TOKEN_VALUE}`, ['URL'])).toEqual([
      { value: `https://x.example/?t=${GITHUB_TOKEN_VALUE}`, labels: ['URL'] },
      { value: GITHUB_TOKEN_VALUE, labels: ['URL'] },
    ]);
    expect(withSecretInside(GITHUB_TOKEN_VALUE, ['T'])).toEqual([{ value: GITHUB_TOKEN_VALUE, labels: ['T'] }]);
    expect(withSecretInside('plain-value', ['P'])).toEqual([{ value: 'plain-value', labels: ['P'] }]);
  });

  test('sensitiveValues: each scalar, then each of its parts', () => {
    const s = scalar('https://h.example/cb?t=abc', ['HOOK_TOKEN'], [{ name: 'HOOK_TOKEN', value: 'abc' }]);
    expect(sensitiveValues([s])).toEqual([
      { value: 'https://h.example/cb?t=abc', labels: ['HOOK_TOKEN'] },
      { value: 'abc', labels: ['HOOK_TOKEN'] },
    ]);
  });

  test('documentMasker masks the values of one document; none without any', () => {
    const s = scalar('https://h.example/cb?t=abc123', ['HOOK_TOKEN'], [{ name: 'HOOK_TOKEN', value: 'abc123' }]);
    const masker = documentMasker({ sensitive: new Map([['/a', s], ['/b', s]]) });
    expect(masker.entries()).toEqual([
      { value: 'https://h.example/cb?t=abc123', labels: ['HOOK_TOKEN'] },
      { value: 'abc123', labels: ['HOOK_TOKEN'] },
    ]);
    expect(masker.text('abc123 and https://h.example/cb?t=abc123')).toBe('(sensitive: HOOK_TOKEN) and (sensitive: HOOK_TOKEN)');
    expect(documentMasker({}).size).toBe(0);
    expect(documentMasker({ sensitive: undefined }).size).toBe(0);
  });

  test('declaredValues: the set, non-empty values of the declared names', () => {
    const env = { PLAIN: 'p-value', EMPTY: '', URL: `https://x.example/?t=${GITHUB_TOKEN_VALUE}` };
    expect(declaredValues(env, ['PLAIN', 'EMPTY', 'UNSET', 'URL'])).toEqual([
      { value: 'p-value', labels: ['PLAIN'] },
      { value: `https://x.example/?t=${GITHUB_TOKEN_VALUE}`, labels: ['URL'] },
      { value: GITHUB_TOKEN_VALUE, labels: ['URL'] },
    ]);
    expect(declaredValues(env, undefined)).toEqual([]);
  });
});
