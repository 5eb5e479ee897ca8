import { describe, expect, it } from 'vitest';
import { classifySecret, entropy, literalApiKey, maskSecret } from '../../../src/validate/rules/literal-api-key.js';
import { doc } from './helpers.js';

/*
 * Every secret format of the rule, held to its exact shape: the shortest run it accepts (the
 * matched text exactly, so a quantifier or a character class that changes is seen), one character
 * short, a character just outside the class, and the label. Values are built from pieces so that
 * this file does not itself look like it holds secrets.
 */

const LABEL = {
  composio: 'a Composio API key',
  aws: 'an AWS access key id',
  github: 'a GitHub token',
  slack: 'a Slack token',
  stripe: 'a Stripe secret key',
  openai: 'an OpenAI-style API key',
  google: 'a Google API key',
  privateKey: 'a private key',
  jwt: 'a JSON Web Token',
} as const;

/** `n` characters cycling through `alphabet`. */
const run = (alphabet: string, n: number): string => Array.from({ length: n }, (_, i) => alphabet[i % alphabet.length]).join('');
const ALNUM = 'aB3xY9zQ1wE5rT7uKp2';
const UPPER_DIGITS = 'IOSFODNN7EXAMPLE';

/** [what, value, label, the secret it must report]: the exact shortest form of each format. */
const accepted: Array<[string, string, string, string]> = [
  ['ak_ and 16 of [A-Za-z0-9_-]', `ak_${run('aB3_-x', 16)}`, LABEL.composio, `ak_${run('aB3_-x', 16)}`],
  ['uak_ and 16', `uak_${run(ALNUM, 16)}`, LABEL.composio, `uak_${run(ALNUM, 16)}`],
  ['ak_ inside prose, cut where the class ends', `key=ak_${run(ALNUM, 20)}; done`, LABEL.composio, `ak_${run(ALNUM, 20)}`],
  ['AKIA and 16 of [0-9A-Z]', `AKIA${UPPER_DIGITS}`, LABEL.aws, `AKIA${UPPER_DIGITS}`],
  ['ASIA and 16', `ASIA${UPPER_DIGITS}`, LABEL.aws, `ASIA${UPPER_DIGITS}`],
  ['an AWS id between words', `id AKIA${UPPER_DIGITS} end`, LABEL.aws, `AKIA${UPPER_DIGITS}`],
  ...(['ghp', 'gho', 'ghu', 'ghs', 'ghr'] as const).map((p): [string, string, string, string] => [`${p}_ and 30 alphanumerics`, `${p}_${run(ALNUM, 30)}`, LABEL.github, `${p}_${run(ALNUM, 30)}`]),
  ['github_pat_ and 40 of [A-Za-z0-9_]', `github_pat_${run('aB3_x9', 40)}`, LABEL.github, `github_pat_${run('aB3_x9', 40)}`],
  ['a fine-grained token ends where the class does', `github_pat_${run(ALNUM, 41)}-x`, LABEL.github, `github_pat_${run(ALNUM, 41)}`],
  ...([...'abposr'] as const).map((c): [string, string, string, string] => [`xox${c}- and 10 of [A-Za-z0-9-]`, `xox${c}-${run('1a-B', 10)}`, LABEL.slack, `xox${c}-${run('1a-B', 10)}`]),
  ['a Slack token ends where the class does', `xoxb-${run('1a-B', 12)}_x`, LABEL.slack, `xoxb-${run('1a-B', 12)}`],
  ['sk_live_ and 16 alphanumerics', `sk_live_${run(ALNUM, 16)}`, LABEL.stripe, `sk_live_${run(ALNUM, 16)}`],
  ['rk_test_ and 16', `rk_test_${run(ALNUM, 16)}`, LABEL.stripe, `rk_test_${run(ALNUM, 16)}`],
  ['a Stripe key ends where the class does', `sk_test_${run(ALNUM, 18)}-x`, LABEL.stripe, `sk_test_${run(ALNUM, 18)}`],
  ['sk- and 20 of [A-Za-z0-9_-]', `sk-${run('aB_-3x', 20)}`, LABEL.openai, `sk-${run('aB_-3x', 20)}`],
  ['sk-proj- and 20', `sk-proj-${run(ALNUM, 20)}`, LABEL.openai, `sk-proj-${run(ALNUM, 20)}`],
  ['an OpenAI key ends where the class does', `sk-${run(ALNUM, 22)}.x`, LABEL.openai, `sk-${run(ALNUM, 22)}`],
  ['AIza and 35 of [0-9A-Za-z_-]', `AIza${run('Sy_-9aB', 35)}`, LABEL.google, `AIza${run('Sy_-9aB', 35)}`],
  ['a Google key between words', `k=AIza${run(ALNUM, 35)} x`, LABEL.google, `AIza${run(ALNUM, 35)}`],
  ['a private key with no algorithm', '-----BEGIN PRIVATE KEY-----', LABEL.privateKey, '-----BEGIN PRIVATE KEY-----'],
  ['an RSA private key block, reported whole and trimmed', '\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END RSA PRIVATE KEY-----\n', LABEL.privateKey, '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END RSA PRIVATE KEY-----'],
  ['an OPENSSH private key', '-----BEGIN OPENSSH PRIVATE KEY-----', LABEL.privateKey, '-----BEGIN OPENSSH PRIVATE KEY-----'],
  ['a JWT: three dot-separated parts of 8 or more', `eyJ${run('hbG_-9', 8)}.eyJ${run('zd2-_1', 8)}.${run('Sf_-4x', 8)}`, LABEL.jwt, `eyJ${run('hbG_-9', 8)}.eyJ${run('zd2-_1', 8)}.${run('Sf_-4x', 8)}`],
  ['a JWT in a header value, cut at the space', `Bearer eyJ${run(ALNUM, 10)}.eyJ${run(ALNUM, 9)}.${run(ALNUM, 12)} trailing`, LABEL.jwt, `eyJ${run(ALNUM, 10)}.eyJ${run(ALNUM, 9)}.${run(ALNUM, 12)}`],
];

/** Values one step outside a format: too short, a character outside the class, a wrong prefix. */
const refused: Array<[string, string]> = [
  ['ak_ and 15', `ak_${run(ALNUM, 15)}`],
  ['ak_ with a dot inside the first 16', `ak_${run(ALNUM, 8)}.${run(ALNUM, 8)}`],
  ['ak_ glued to a word', `mak_${run(ALNUM, 20)}`],
  ['AKIA and 15', `AKIA${UPPER_DIGITS.slice(1)}`],
  ['AKIA and 17 (no word boundary after 16)', `AKIA${UPPER_DIGITS}Z`],
  ['AKIA and lowercase', `AKIA${UPPER_DIGITS.toLowerCase()}`],
  ['ghp_ and 29', `ghp_${run(ALNUM, 29)}`],
  ['ghx_ and 30', `ghx_${run(ALNUM, 30)}`],
  ['ghp_ with a dash inside the first 30', `ghp_${run(ALNUM, 15)}-${run(ALNUM, 15)}`],
  ['github_pat_ and 39', `github_pat_${run(ALNUM, 39)}`],
  ['github_pat_ with a dash inside the first 40', `github_pat_${run(ALNUM, 20)}-${run(ALNUM, 20)}`],
  ['xoxb- and 9', `xoxb-${run('1a-B', 9)}`],
  ['xoxz- and 12', `xoxz-${run('1a-B', 12)}`],
  ['xoxb- with an underscore inside the first 10', `xoxb-${run('1a', 5)}_${run('1a', 5)}`],
  ['sk_live_ and 15', `sk_live_${run(ALNUM, 15)}`],
  ['sk_prod_ and 20', `sk_prod_${run(ALNUM, 20)}`],
  ['sk- and 19', `sk-${run(ALNUM, 19)}`],
  ['sk- with a dot inside the first 20', `sk-${run(ALNUM, 10)}.${run(ALNUM, 10)}`],
  ['AIza and 34', `AIza${run(ALNUM, 34)}`],
  ['AIza and 36 (no word boundary after 35)', `AIza${run(ALNUM, 36)}`],
  ['AIza with a dot inside the 35', `AIza${run(ALNUM, 17)}.${run(ALNUM, 17)}`],
  ['BEGIN ... KEY without PRIVATE', '-----BEGIN PUBLIC KEY-----'],
  ['a private key header with a digit in its algorithm', '-----BEGIN RSA2 PRIVATE KEY-----'],
  ['a JWT with a short first part', `eyJ${run(ALNUM, 7)}.eyJ${run(ALNUM, 8)}.${run(ALNUM, 8)}`],
  ['a JWT with a short second part', `eyJ${run(ALNUM, 8)}.eyJ${run(ALNUM, 7)}.${run(ALNUM, 8)}`],
  ['a JWT with a short third part', `eyJ${run(ALNUM, 8)}.eyJ${run(ALNUM, 8)}.${run(ALNUM, 7)}`],
  ['a JWT with a dot inside the first part', `eyJ${run(ALNUM, 4)}+${run(ALNUM, 4)}.eyJ${run(ALNUM, 8)}.${run(ALNUM, 8)}`],
  ['a JWT whose second part is not eyJ', `eyJ${run(ALNUM, 8)}.abc${run(ALNUM, 8)}.${run(ALNUM, 8)}`],
];

describe('classifySecret: every known format, exactly', () => {
  it.each(accepted)('%s', (_what, value, label, secret) => {
    expect(classifySecret(value, undefined)).toEqual({ label, secret });
  });

  it.each(refused)('not %s', (_what, value) => {
    expect(classifySecret(value, undefined)).toBeUndefined();
  });

  it('a Slack token of 15 characters, the shortest format, is found', () => {
    // xoxb- and ten: shorter than the 16 characters the length guard once assumed for every format.
    expect(classifySecret(`xoxb-${run('1a-B', 10)}`, undefined)).toEqual({ label: LABEL.slack, secret: `xoxb-${run('1a-B', 10)}` });
    expect(`xoxb-${run('1a-B', 10)}`).toHaveLength(15);
    expect(classifySecret(`xoxb-${run('1a-B', 11)}`, undefined)?.secret).toHaveLength(16);
  });
});

describe('classifySecret: a long random value under a secret-like key', () => {
  const random20 = 'Zx81kQ0pLm27vBn4Rt6y';
  it.each([
    ['api_key'],
    ['API_KEY'],
    ['apikey'],
    ['x-api-key'],
    ['token'],
    ['access_token'],
    ['client-secret'],
    ['password'],
    ['db_passwd'],
    ['credentials'],
    ['basic_auth'],
    ['key'],
    ['keyring'],
    ['tokenValue'],
    ['secretsmanager'],
  ])('under `%s`', (name) => {
    expect(classifySecret(random20, name)).toEqual({ label: `a secret (a long random value under \`${name}\`)`, secret: random20 });
  });

  it.each([
    ['api_key_id', 'the name ends in _id, not in key'],
    ['monkey', 'key is not a separate word'],
    ['my_tokens', 'token is followed by more'],
    ['callback_url', 'nothing secret in the name'],
    ['author', 'auth must end the name'],
  ])('not under `%s` (%s)', (name) => {
    expect(classifySecret(random20, name)).toBeUndefined();
  });

  it('needs 20 characters, no whitespace and 3.5 bits of entropy per character', () => {
    expect(classifySecret(random20, 'token')).toBeDefined();
    expect(classifySecret(random20.slice(0, 19), 'token')).toBeUndefined();
    expect(classifySecret('Zx81kQ0pLm 27vBn4Rt6yWq', 'token')).toBeUndefined();
    const exactly35 = 'abcdefghabcdefghijklijklijklijkl';
    expect(entropy(exactly35)).toBe(3.5);
    expect(classifySecret(exactly35, 'secret')).toEqual({ label: 'a secret (a long random value under `secret`)', secret: exactly35 });
    expect(classifySecret('abcdefghabcdefghijklijklijklijkk', 'secret')).toBeUndefined();
    expect(classifySecret('a'.repeat(40), 'password')).toBeUndefined();
  });

  it('without a key name, a random value is no finding', () => {
    expect(classifySecret(random20, undefined)).toBeUndefined();
  });
});

describe('entropy and masking', () => {
  it.each([
    ['', 0],
    ['aaaa', 0],
    ['ab', 1],
    ['abcd', 2],
    ['aabb', 1],
    ['abcdefgh', 3],
  ])('entropy(%j) = %d bits', (text, bits) => {
    expect(entropy(text)).toBe(bits);
  });

  it('masks all but the last four characters', () => {
    expect(maskSecret('ghp_abcdefghijklmnopqrstuvwxyz0123456789')).toBe('****6789');
    expect(maskSecret('abc')).toBe('****abc');
  });
});

describe('rule/literal-api-key on documents', () => {
  const github = `ghp_${run(ALNUM, 36)}`;

  it('reports the exact diagnostic: located value, masked secret, display path, hint', () => {
    const d = doc(`user_id: u\nexperimental:\n  custom_tools:\n    - slug: T\n      description: "uses ${github}"\n`);
    expect(literalApiKey.check(d)).toEqual([
      {
        code: 'rule/literal-api-key',
        severity: 'error',
        message: `\`experimental.custom_tools[0].description\` holds what looks like a GitHub token (${maskSecret(github)})`,
        file: '/work/m.yaml',
        pointer: '/experimental/custom_tools/0/description',
        range: { start: { line: 5, col: 20 }, end: { line: 5, col: 67 } },
        hint: 'Never commit secrets: reference an environment variable instead, such as `${MY_SECRET}`, and rotate this one if it was real.',
      },
    ]);
  });

  it('a list under a secret-like key passes the key name to its members', () => {
    const found = literalApiKey.check(doc('user_id: u\nx-tokens:\n  token:\n    - Zx81kQ0pLm27vBn4Rt6yWq9s\n    - short\n'));
    expect(found.map((f) => [f.pointer, f.message])).toEqual([['/x-tokens/token/0', '`x-tokens.token[0]` holds what looks like a secret (a long random value under `token`) (****Wq9s)']]);
  });

  it('an alias of a literal key is reported for both keys, located at the anchored literal', () => {
    const found = literalApiKey.check(doc(`x-keys:\n  gh: &k ${github}\nuser_id: *k\n`));
    expect(found.map((f) => [f.pointer, f.range?.start])).toEqual([
      ['/x-keys/gh', { line: 2, col: 10 }],
      ['/user_id', { line: 2, col: 10 }],
    ]);
  });

  it('reads nulls, numbers and booleans without a finding', () => {
    expect(literalApiKey.check(doc('user_id: u\nworkbench: ~\nx: [1, true, null, {a: ~}]\n'))).toEqual([]);
  });

  it.each([
    ['a list', `- ${github}\n- x\n`, ['/0']],
    ['a bare scalar', `${github}\n`, ['']],
    ['null', '~\n', []],
    ['a number', '42\n', []],
  ])('a document that is %s', (_name, yaml, pointers) => {
    expect(literalApiKey.check(doc(yaml)).map((f) => f.pointer)).toEqual(pointers);
  });

  it('an interpolated value is never reported, a literal beside it is', () => {
    const d = doc(`user_id: \${TOKEN}\nx: prefix-\${TOKEN}\ny: ${github}\n`, '/work/m.yaml', { TOKEN: github });
    expect(literalApiKey.check(d).map((f) => f.pointer)).toEqual(['/y']);
  });
});
