import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { interpolate } from '../../../src/manifest/interpolate.js';
import { parseManifestText } from '../../../src/manifest/load.js';
import { yaml } from './yaml-text.js';

const env = { USER_ID: 'u-42', EMPTY: '', TZ_NAME: 'Europe/Paris' };

describe('interpolate', () => {
  it.each([
    ['no reference', 'plain text', 'plain text'],
    ['a variable', 'user-${USER_ID}', 'user-u-42'],
    ['two variables', '${USER_ID}/${TZ_NAME}', 'u-42/Europe/Paris'],
    ['a set but empty variable', '[${EMPTY}]', '[]'],
    ['a default for an unset variable', '${NOPE:-fallback}', 'fallback'],
    ['a default for an empty variable', '${EMPTY:-fallback}', 'fallback'],
    ['a default that is not used', '${USER_ID:-fallback}', 'u-42'],
    ['an empty default', '${NOPE:-}', ''],
    ['a default with spaces and colons', '${NOPE:-a b:c}', 'a b:c'],
    ['an escaped reference', '$${USER_ID}', '${USER_ID}'],
    ['an escape next to a reference', '$${X}${USER_ID}', '${X}u-42'],
    ['a bare dollar', 'costs $5 or $USER_ID', 'costs $5 or $USER_ID'],
    ['a trailing dollar', 'x$', 'x$'],
    ['a nested default', '${NOPE:-${USER_ID}}', 'u-42'],
    ['a nested default inside text', '${NOPE:-pre-${NOPE2:-x}-post}', 'pre-x-post'],
    ['a nested default that is not needed', '${USER_ID:-${NOPE}}', 'u-42'],
    ['an escape inside a default', '${NOPE:-$${HOME}}', '${HOME}'],
  ])('%s', (_name, text, expected) => {
    const r = interpolate(text, env);
    expect(r.problems).toEqual([]);
    expect(r.value).toBe(expected);
  });

  it.each([
    ['an unset variable', 'a ${NOPE} b', ['env/unset-variable']],
    ['two unset variables', '${A}${B}', ['env/unset-variable', 'env/unset-variable']],
    ['no closing brace', 'x ${USER_ID', ['env/bad-reference']],
    ['an empty name', '${}', ['env/bad-reference']],
    ['a name starting with a digit', '${1X}', ['env/bad-reference']],
    ['another operator', '${X-default}', ['env/bad-reference']],
    ['the := operator', '${X:=default}', ['env/bad-reference']],
    ['a space in the name', '${ USER_ID }', ['env/bad-reference']],
    ['an unset variable inside a default', '${NOPE:-${ALSO_NOPE}}', ['env/unset-variable']],
    ['a nested reference never closed', '${NOPE:-${USER_ID}', ['env/bad-reference']],
    ['defaults nested 9 deep', `${'${N:-'.repeat(9)}x${'}'.repeat(9)}`, ['env/bad-reference']],
  ])('%s is a problem', (_name, text, codes) => {
    const r = interpolate(text, env);
    expect(r.problems.map((p) => p.code)).toEqual(codes);
  });

  it('a default that holds a reference never reaches the value as literal text', () => {
    const r = interpolate('${U:-${OTHER}}', { OTHER: 'o' });
    expect(r.value).toBe('o');
    expect(interpolate('${U:-${OTHER}}', {}).problems.map((p) => [p.code, p.variable])).toEqual([['env/unset-variable', 'OTHER']]);
  });

  it('a value that would expand past 64 Ki characters is env/too-large and stays as written', () => {
    const text = '${X}'.repeat(4200);
    const r = interpolate(text, { X: 'x'.repeat(130_000) });
    expect(r.problems.map((p) => p.code)).toEqual(['env/too-large']);
    expect(r.value).toBe(text);
  });

  it('a document budget is shared by its values', () => {
    const budget = { remaining: 25 };
    expect(interpolate('${X}', { X: 'x'.repeat(20) }, { budget }).problems).toEqual([]);
    expect(budget.remaining).toBe(5);
    const r = interpolate('${X}', { X: 'x'.repeat(20) }, { budget });
    expect(r.problems.map((p) => p.code)).toEqual(['env/too-large']);
    expect(r.value).toBe('${X}');
  });

  it('names the variables it read', () => {
    expect(interpolate('${USER_ID} ${NOPE:-x} ${USER_ID}', env).variables).toEqual(['USER_ID', 'NOPE']);
  });
});

describe('bounded expansion in a manifest', () => {
  it('4,200 references to a 130 KB value: one located env/too-large, no crash', () => {
    const text = `user_id: u\ntoolkits: [${Array.from({ length: 4200 }, () => '"${X}"').join(', ')}]\n`;
    const r = parseManifestText(text, '/m/big.yaml', { env: { X: 'x'.repeat(130_000) } });
    const found = r.diagnostics.filter((d) => d.code === 'env/too-large');
    expect(found.map((d) => [d.pointer, d.range?.start.line])).toEqual([['/toolkits/0', 2]]);
  });

  it('2,000 values of a${X} with a 1 MB value: one finding for the document', () => {
    const text = `user_id: u\nexperimental:\n  custom_tools:\n${Array.from({ length: 2000 }, (_, i) => `    - { slug: s${i}, name: "a\${X}" }`).join('\n')}\n`;
    const r = parseManifestText(text, '/m/many.yaml', { env: { X: 'x'.repeat(1_000_000) } });
    expect(r.diagnostics.filter((d) => d.code === 'env/too-large').map((d) => d.pointer)).toEqual(['/experimental/custom_tools/0/name']);
  });

  it('values that each fit but together pass the file size limit: one finding where the budget runs out', () => {
    const text = `user_id: u\nexperimental:\n  custom_tools:\n${Array.from({ length: 2000 }, (_, i) => `    - { slug: s${i}, name: "a\${X}" }`).join('\n')}\n`;
    const r = parseManifestText(text, '/m/many.yaml', { env: { X: 'x'.repeat(60_000) } });
    // Each value is 60,001 characters; the 1 MiB budget holds 17 of them.
    expect(r.diagnostics.filter((d) => d.code === 'env/too-large').map((d) => d.pointer)).toEqual(['/experimental/custom_tools/17/name']);
  });
});

describe('interpolation in a manifest', () => {
  const where = (d: Diagnostic) => [d.code, d.pointer, d.range?.start.line, d.range?.start.col, d.range?.end.col];
  const text = yaml`
    name: agent-\${STAGE:-dev}
    user_id: \${USER_ID}
    toolkits:
      enable: [gmail, "\${EXTRA}"]
    \${KEY_NOT_EXPANDED}: x
    experimental:
      assistive_prompt_config: { user_timezone: "\${TZ_NAME}" }
    note: |
      literal $\${HOME}
  `;

  it('expands string values, never keys, and locates each problem at its scalar', () => {
    const r = parseManifestText(text, '/m/agent.yaml', { env });
    expect(r.diagnostics.map(where)).toEqual([['env/unset-variable', '/toolkits/enable/1', 4, 19, 29]]);
    const doc = r.documents[0];
    expect(doc?.name).toBe('agent-dev');
    expect(doc?.nameDeclared).toBe(true);
    expect(doc?.data).toEqual({
      name: 'agent-dev',
      user_id: 'u-42',
      toolkits: { enable: ['gmail', '${EXTRA}'] },
      '${KEY_NOT_EXPANDED}': 'x',
      experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } },
      note: 'literal ${HOME}\n',
    });
  });

  it('expands the name before it becomes the manifest name', () => {
    const r = parseManifestText('name: ${STAGE}-agent\n', '/m/x.yaml', { env: { STAGE: 'prod' } });
    expect(r.documents[0]?.name).toBe('prod-agent');
  });

  it('a name with an unset variable falls back to the file stem (the document is kept, the error reported)', () => {
    const r = parseManifestText('name: ${STAGE}-agent\n---\nname: ${STAGE}-agent\n', '/m/x.yaml', { env: {} });
    expect(r.diagnostics.map((d) => [d.code, d.pointer, d.range?.start.line])).toEqual([
      ['env/unset-variable', '/name', 1],
      ['env/unset-variable', '/name', 3],
    ]);
    expect(r.documents.map((d) => [d.name, d.nameDeclared])).toEqual([
      ['x', true],
      ['x#2', true],
    ]);
  });

  it('an anchored value is expanded once and shared', () => {
    const r = parseManifestText('a: &v ${NOPE}\nb: *v\n', '/m/x.yaml', { env: {} });
    expect(r.diagnostics.map(where)).toEqual([['env/unset-variable', '/a', 1, 7, 14]]);
  });

  it('a value that becomes a string stays a string (no re-typing after expansion)', () => {
    const r = parseManifestText('n: ${N}\n', '/m/x.yaml', { env: { N: '42' } });
    expect(r.documents[0]?.data).toEqual({ n: '42' });
  });
});
