import { describe, expect, test } from 'vitest';
// @ts-expect-error -- a plain JS script, run by `npm test` before vitest
import { lintText } from '../../../scripts/lint-tests.mjs';

interface Finding {
  file: string;
  line: number;
  col: number;
  rule: string;
}

const lint = (text: string, file = 'test/unit/x.test.ts'): Array<[string, number, number]> =>
  (lintText(file, text) as Finding[]).map((f) => [f.rule, f.line, f.col]);

describe('scripts/lint-tests.mjs', () => {
  test.each([
    ['test.only', `test.only('a', () => {});`, [['only', 1, 6]]],
    ['describe.only', `describe.only('a', () => {});`, [['only', 1, 10]]],
    ['it.only.each', `it.only.each([1])('a %s', () => {});`, [['only', 1, 4]]],
    ['test.skip', `test.skip('a', () => {});`, [['skip', 1, 6]]],
    ['describe.todo', `describe.todo('a');`, [['skip', 1, 10]]],
    ['skipIf without a reason', `it.skipIf(!ok)('a', () => {});`, [['skip', 1, 4]]],
    ['runIf without a reason', `describe.runIf(ok)('a', () => {});`, [['skip', 1, 10]]],
  ])('%s', (_name, text, expected) => {
    expect(lint(text)).toEqual(expected);
  });

  test('skipIf with skipBecause, and names that merely contain the words, pass', () => {
    expect(lint(`it.skipIf(skipBecause(!ok, 'why'))('a', () => {});\nconst only = 1; obj.skip(); run.only;`)).toEqual([]);
  });

  test('expect.unreachable inside a try with a catch: the shape that could not fail', () => {
    const text = [
      "test('x', () => {",
      '  try {',
      '    check();',
      '    expect.unreachable();',
      '  } catch (err) {',
      '    expect(err).toBeTruthy();',
      '  }',
      '});',
    ].join('\n');
    expect(lint(text)).toEqual([['unreachable-in-try', 4, 5]]);
  });

  test('expect.fail and assert.fail inside a try are found; outside a try, or in try/finally, they pass', () => {
    const text = ['try { expect.fail("x"); } catch {}', 'try { assert.fail("x"); } catch {}', 'expect.unreachable();', 'try { expect.unreachable(); } finally { done(); }'].join('\n');
    expect(lint(text)).toEqual([
      ['unreachable-in-try', 1, 7],
      ['unreachable-in-try', 2, 7],
    ]);
  });

  test('a silent early return in a test body, including test.each; returns in helpers and callbacks pass', () => {
    const text = [
      "it('a', () => {",
      '  if (!existsSync(p)) return;',
      '  expect(1).toBe(1);',
      '});',
      "test.each([1])('b %s', async (n) => {",
      '  if (n > 0) {',
      '    return;',
      '  }',
      '});',
      "it('c', () => {",
      '  const f = (x: number) => { if (x) return 1; return 2; };',
      '  expect(f(1)).toBe(1);',
      '});',
      'function helper() { if (a) return; }',
    ].join('\n');
    expect(lint(text)).toEqual([
      ['silent-return', 2, 23],
      ['silent-return', 7, 5],
    ]);
  });

  test('temp folders come from tempDir() only', () => {
    const text = "const a = mkdtempSync(join(tmpdir(), 'x-'));\nconst b = await fs.mkdtemp('y');";
    expect(lint(text)).toEqual([
      ['temp-dir', 1, 11],
      ['temp-dir', 2, 17],
    ]);
    expect(lint(text, 'test/helpers/temp-dir.ts')).toEqual([]);
  });

  test('signals to the worker process itself', () => {
    expect(lint("process.emit('SIGINT');\nprocess.kill(process.pid, 'SIGTERM');\nchild.kill('SIGINT');\nprocess.emit('warning', w);")).toEqual([
      ['process-signal', 1, 1],
      ['process-signal', 2, 1],
    ]);
  });

  test('absolute paths of one machine; JSON pointers and relative paths pass', () => {
    const text = [
      "read('/work/shared/contract/x.json');",
      'read(`/home/me/${x}`);',
      "read('/tmp/out');",
      "read('C:\\\\Users\\\\me');",
      "const pointer = '/workbench/enable';",
      "const fake = '/nonexistent/catalog.json';",
    ].join('\n');
    expect(lint(text)).toEqual([
      ['machine-path', 1, 6],
      ['machine-path', 2, 6],
      ['machine-path', 3, 6],
      ['machine-path', 4, 6],
    ]);
  });

  test('positions are 1-based line:col of the offending token', () => {
    expect(lintText('test/a.test.ts', '\n\n    test.only("x", () => {});') as Finding[]).toEqual([
      { file: 'test/a.test.ts', line: 3, col: 10, rule: 'only', message: '`.only` runs this test alone and drops the others' },
    ]);
  });
});
