import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/index.js';
import { parseManifestText } from '../../../src/manifest/parse.js';
import { validateDocument } from '../../../src/validate/index.js';
import { doc, where } from './helpers.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('YAML special numbers', () => {
  it.each([
    ['.nan', '`.nan` (not a number)'],
    ['.inf', '`.inf` (infinity)'],
    ['-.inf', '`-.inf` (infinity)'],
  ])('%s where a number belongs says what it is', (value, said) => {
    const found = validateDocument(doc(`user_id: u\nworkbench: { auto_offload_threshold: ${value} }\n`));
    expect(where(found)).toEqual(['schema/type@2:38']);
    expect(found[0]!.message).toBe(`\`workbench.auto_offload_threshold\` must be a number, not ${said}`);
    expect(found[0]!.hint).toContain('write a finite number');
  });
});

describe('what a message quotes from the input is capped', () => {
  const huge = 'k'.repeat(900_000);

  it('a 900 KB unknown key: an excerpt, an ellipsis and the length', () => {
    const found = validateDocument(doc(`user_id: u\n? ${huge}\n: 1\n`));
    expect(where(found)).toEqual(['schema/unknown-key@2:3']);
    expect(found[0]!.message).toBe(`unknown key \`${'k'.repeat(80)}… (900,000 characters)\``);
  });

  it('a 900 KB toolkit key in tools: every message and related message is short', () => {
    const found = validateDocument(doc(`user_id: u\ntoolkits: [gmail]\ntools:\n  ? ${huge}\n  : { enable: [X] }\n`));
    expect(found.length).toBeGreaterThan(0);
    for (const d of found) {
      expect(d.message.length).toBeLessThan(400);
      for (const r of d.related ?? []) expect(r.message.length).toBeLessThan(400);
    }
  });

  it('a 900 KB alias name in a YAML finding', () => {
    const r = parseManifestText(`user_id: *${'a'.repeat(900_000)}\n`, '/m/x.yaml', {});
    expect(r.diagnostics.length).toBeGreaterThan(0);
    for (const d of r.diagnostics) expect(d.message.length).toBeLessThan(400);
  });
});

describe('a name taken from the file name obeys the name rule', () => {
  it.each([
    ['evil\nINJECT=1.yaml', 'evil\nINJECT=1'],
    ['Support_Agent.yaml', 'Support_Agent'],
    [`${'a'.repeat(64)}.yaml`, 'a'.repeat(64)],
  ])('%j without name: is rule/name-from-file at the document start', (file, stem) => {
    const found = validateDocument(doc('user_id: u\n', `/m/${file}`));
    expect(where(found)).toEqual(['rule/name-from-file@1:1']);
    expect(found[0]!.message).toContain(JSON.stringify(stem));
  });

  it.each([['support-agent.yaml'], ['a1.yml']])('%s is a valid name; a declared name needs no file name rule', (file) => {
    expect(validateDocument(doc('user_id: u\n', `/m/${file}`))).toEqual([]);
    expect(validateDocument(doc('name: ok\nuser_id: u\n', `/m/Bad_Name.yaml`))).toEqual([]);
  });

  it('later documents of a file are stem#N: the stem is what is checked', () => {
    const r = parseManifestText('user_id: a\n---\nuser_id: b\n', '/m/team.yaml', {});
    expect(r.documents.flatMap((d) => validateDocument(d))).toEqual([]);
  });
});

describe('the library loadManifests without env', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('noenv');
    await writeFile(join(dir, 'm.yaml'), 'name: m\nuser_id: ${SOME_USER:-fallback}\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('expands from {} (never from process.env), with no TypeError', async () => {
    process.env['SOME_USER'] = 'from-process-env';
    try {
      const r = await loadManifests(['m.yaml'], { cwd: dir });
      expect(r.diagnostics).toEqual([]);
      expect(r.documents[0]!.data).toEqual({ name: 'm', user_id: 'fallback' });
    } finally {
      delete process.env['SOME_USER'];
    }
  });
});
