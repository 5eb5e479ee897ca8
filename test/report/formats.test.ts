import { describe, expect, test } from 'vitest';
import { formatNames, reporters } from '../../src/report/registry.js';
import type { Report } from '../../src/report/types.js';
import { cleanReport, context, cwd, report, sources } from './fixture.js';

// One fixed report rendered in every format, compared with the expected output kept beside this
// test (read and checked by hand; update with `npm run test:update -- test/report` only after reading the diff).
const extension: Record<string, string> = { human: 'txt', json: 'json', github: 'txt', sarif: 'sarif.json', junit: 'xml', markdown: 'md' };

describe('every format renders the fixture report exactly', () => {
  test.each(formatNames)('%s', async (name) => {
    await expect(reporters[name].render(report, context())).toMatchFileSnapshot(`__snapshots__/fixture.${name}.${extension[name]}`);
  });
});

describe('every format renders a clean run exactly', () => {
  test.each(formatNames)('%s', async (name) => {
    await expect(reporters[name].render(cleanReport, context())).toMatchFileSnapshot(`__snapshots__/clean.${name}.${extension[name]}`);
  });
});

describe('reporters are pure', () => {
  test.each(formatNames)('%s gives the same string twice and leaves the report untouched', (name) => {
    const before = JSON.stringify(report);
    const first = reporters[name].render(report, context());
    expect(reporters[name].render(report, context())).toBe(first);
    expect(JSON.stringify(report)).toBe(before);
  });

  test('the registry names match the reporters', () => {
    expect(formatNames).toEqual(['human', 'json', 'github', 'sarif', 'junit', 'markdown']);
    for (const name of formatNames) expect(reporters[name].name).toBe(name);
  });
});

describe('paths', () => {
  const one = (file: string): Report => ({
    command: 'validate',
    files: [file],
    diagnostics: [{ code: 'schema/required', severity: 'error', message: 'm', file, range: { start: { line: 1, col: 1 }, end: { line: 1, col: 2 } } }],
    summary: { errors: 1, warnings: 0, infos: 0, files: 1, manifests: 1 },
  });

  test.each([
    ['a file under cwd', `${cwd}/a/b.yaml`, 'a/b.yaml'],
    ['a file outside cwd', '/elsewhere/c.yaml', '../elsewhere/c.yaml'],
    ['standard input', '<stdin>', '<stdin>'],
    ['a relative path, normalised only', './x/../y.yaml', 'y.yaml'],
  ])('%s is shown the same way in every format', (_name, file, shown) => {
    const ctx = { ...context(), sources: new Map([[file, 'a: 1\n']]) };
    const r = one(file);
    expect(reporters.human.render(r, ctx)).toContain(`${shown}:1:1  error`);
    expect(JSON.parse(reporters.json.render(r, ctx)).diagnostics[0].file).toBe(shown);
    expect(JSON.parse(reporters.json.render(r, ctx)).files).toEqual([shown]);
    expect(reporters.junit.render(r, ctx)).toContain(`classname="${shown.replace('<', '&lt;').replace('>', '&gt;')}"`);
    expect(reporters.markdown.render(r, ctx)).toContain(`\`${shown}:1:1\``);
    const uri = JSON.parse(reporters.sarif.render(r, ctx)).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri;
    expect(decodeURIComponent(uri)).toBe(shown);
  });

  test('sources are looked up by the path the loader gave, not the shown one', () => {
    expect(sources.has('/repo/manifests/support.yaml')).toBe(true);
    expect(reporters.human.render(report, context())).toContain('> 5 |   disable: [gmail]');
  });
});
