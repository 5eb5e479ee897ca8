import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { colorEnabled, emitReport, formatOption, parseFormatSpec, resolveTargets } from '../../src/cli/output.js';
import type { CommandEnv } from '../../src/cli/command.js';
import { Redactor } from '../../src/cli/redact.js';
import { InputError, UsageError } from '../../src/diagnostics/errors.js';
import { reporters } from '../../src/report/registry.js';
import type { Report } from '../../src/report/types.js';
import { writeFileAtomic } from '../../src/util/atomic-write.js';
import { version } from '../../src/version.js';
import { tempDir } from '../helpers/temp-dir.js';
import { thrown } from '../helpers/rejection.js';
import { ValueMasker } from '../../src/util/sensitive.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('output');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SECRET = 'sk-test-0123456789abcdef';

function reportIn(cwd: string, message = 'must be a string'): { report: Report; sources: Map<string, string> } {
  const file = join(cwd, 'a.yaml');
  return {
    report: {
      command: 'validate',
      files: [file],
      diagnostics: [{ code: 'schema/type', severity: 'error', message, file, range: { start: { line: 1, col: 10 }, end: { line: 1, col: 12 } } }],
      summary: { errors: 1, warnings: 0, infos: 0, files: 1, manifests: 1 },
    },
    sources: new Map([[file, 'user_id: 42\n']]),
  };
}

function envFor(options: Parameters<typeof memoryIo>[0]): CommandEnv & { io: ReturnType<typeof memoryIo> } {
  const io = memoryIo(options);
  const redactor = new Redactor();
  redactor.add(SECRET);
  return { io, redactor, masker: new ValueMasker(), setExitCode: () => undefined };
}

/** What a reporter renders for this report without colour, as a file would hold it. */
function plain(name: keyof typeof reporters, report: Report, sources: ReadonlyMap<string, string>, cwd: string): string {
  return reporters[name].render(report, { cwd, color: false, toolVersion: version, sources });
}

const ESC = '\u001b[';

describe('parseFormatSpec', () => {
  test.each([
    ['a name', 'json', { format: 'json' }],
    ['a name and a file', 'sarif=out/report.sarif', { format: 'sarif', file: 'out/report.sarif' }],
    ['a file name with "="', 'junit=a=b.xml', { format: 'junit', file: 'a=b.xml' }],
    ['"-" for standard output', 'json=-', { format: 'json' }],
  ])('%s', (_name, spec, expected) => {
    expect(parseFormatSpec(spec)).toEqual(expected);
  });

  test.each([
    ['an unknown name', 'xml'],
    ['an unknown name with a file', 'xml=out.xml'],
    ['an empty file', 'json='],
    ['nothing', ''],
  ])('%s is a usage error', (_name, spec) => {
    expect(() => parseFormatSpec(spec)).toThrow(UsageError);
  });

  test('the error for an unknown name lists the choices', () => {
    const err = thrown(() => parseFormatSpec('yml'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('unknown report format "yml"');
    expect(err.hint).toBe('choose one of: human, json, github, sarif, junit, markdown (or NAME=FILE to write a file)');
  });
});

describe('formatOption', () => {
  const program = (): Command =>
    new Command('t')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
      .addOption(formatOption())
      .action(() => undefined);

  test('is repeatable and keeps the specs as given', async () => {
    const p = program();
    await p.parseAsync(['--format', 'json', '--format', 'sarif=out.sarif'], { from: 'user' });
    expect(p.opts()['format']).toEqual(['json', 'sarif=out.sarif']);
  });

  test('is undefined when not given', async () => {
    const p = program();
    await p.parseAsync([], { from: 'user' });
    expect(p.opts()['format']).toBeUndefined();
  });

  test('rejects an unknown name while parsing', async () => {
    const p = program();
    const err = await p.parseAsync(['--format', 'xml'], { from: 'user' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).code).toBe('commander.invalidArgument');
    expect((err as CommanderError).message).toContain('unknown report format "xml"; choose one of: human, json, github, sarif, junit, markdown');
  });

  test('the help lists the choices from the registry', () => {
    // commander wraps long help lines; compare the text with the wrapping undone.
    expect(program().helpInformation().replace(/\s+/g, ' ')).toContain('(choices: human, json, github, sarif, junit, markdown;');
  });
});

describe('colorEnabled', () => {
  test.each([
    ['a TTY', {}, true, true],
    ['a pipe', {}, false, false],
    ['NO_COLOR on a TTY', { NO_COLOR: '1' }, true, false],
    ['an empty NO_COLOR is unset', { NO_COLOR: '' }, true, true],
    ['FORCE_COLOR on a pipe', { FORCE_COLOR: '1' }, false, true],
    ['an empty FORCE_COLOR forces colour', { FORCE_COLOR: '' }, false, true],
    ['FORCE_COLOR=0 on a TTY', { FORCE_COLOR: '0' }, true, false],
    ['FORCE_COLOR=false on a TTY', { FORCE_COLOR: 'false' }, true, false],
    ['FORCE_COLOR wins over NO_COLOR', { FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
  ])('%s', (_name, env, tty, expected) => {
    expect(colorEnabled(env, tty)).toBe(expected);
  });
});

describe('resolveTargets', () => {
  test('no --format: human to stdout', () => {
    expect(resolveTargets(undefined, {}, '/w')).toEqual([{ format: 'human', to: 'stdout' }]);
    expect(resolveTargets([], { GITHUB_ACTIONS: 'false' }, '/w')).toEqual([{ format: 'human', to: 'stdout' }]);
  });

  test('no --format in GitHub Actions: human and annotations to stdout, markdown appended to the step summary', () => {
    expect(resolveTargets(undefined, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: 'summary.md' }, '/w')).toEqual([
      { format: 'human', to: 'stdout' },
      { format: 'github', to: 'stdout' },
      { format: 'markdown', to: 'append', path: '/w/summary.md' },
    ]);
    expect(resolveTargets(undefined, { GITHUB_ACTIONS: 'true' }, '/w')).toEqual([
      { format: 'human', to: 'stdout' },
      { format: 'github', to: 'stdout' },
    ]);
  });

  test('an explicit --format replaces the defaults, also in GitHub Actions', () => {
    expect(resolveTargets(['json', 'sarif=r.sarif'], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/s.md' }, '/w')).toEqual([
      { format: 'json', to: 'stdout' },
      { format: 'sarif', to: 'file', path: '/w/r.sarif' },
    ]);
  });

  test.each([
    ['two formats to stdout', ['json', 'human'], 'only one report can go to standard output'],
    ['"-" counts as stdout', ['json', 'sarif=-'], 'only one report can go to standard output'],
    ['the same file twice', ['json=out.json', 'sarif=./out.json'], '--format json=out.json and --format sarif=./out.json write the same file'],
    ['an unknown format', ['json', 'yaml'], 'unknown report format "yaml"'],
  ])('%s is a usage error', (_name, formats, message) => {
    expect(() => resolveTargets(formats, {}, '/w')).toThrow(UsageError);
    expect(() => resolveTargets(formats, {}, '/w')).toThrow(message);
  });
});

describe('emitReport', () => {
  test('default: the human report on stdout, nothing else', async () => {
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, undefined, env);
    expect(env.io.out()).toBe(['a.yaml:1:10  error  must be a string  schema/type', '  > 1 | user_id: 42', '      |          ^^', '', '✖ 1 problem (1 error) in 1 file', ''].join('\n'));
    expect(env.io.err()).toBe('');
  });

  test('in GitHub Actions: human, then annotations on stdout; markdown appended to the step summary', async () => {
    const summary = join(dir, 'step-summary.md');
    await writeFile(summary, 'earlier step\n');
    const env = envFor({ cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, undefined, env);
    const out = env.io.out();
    const token = /^::stop-commands::([0-9a-f]{32})\n/.exec(out)?.[1];
    expect(token).toBeDefined();
    expect(out).toBe(`::stop-commands::${token}\n${plain('human', report, sources, dir)}::${token}::\n${plain('github', report, sources, dir)}`);
    expect(out).toContain('\n::error file=a.yaml,line=1,col=10,endLine=1,endColumn=12,title=schema/type::must be a string\n');
    expect(await readFile(summary, 'utf8')).toBe(`earlier step\n${plain('markdown', report, sources, dir)}`);
  });

  test('in GitHub Actions a forged workflow command in the human report is not obeyed', async () => {
    const env = envFor({ cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    const { report, sources } = reportIn(dir, 'unknown key `x\n::add-mask::forged`');
    await emitReport(report, sources, undefined, env);
    const lines = env.io.out().split('\n');
    const start = lines.findIndex((l) => l.startsWith('::stop-commands::'));
    const token = lines[start]!.slice('::stop-commands::'.length);
    const resume = lines.indexOf(`::${token}::`);
    const forged = lines.findIndex((l) => l.includes('add-mask::forged'));
    // The forged line is printed written out (no line starts with `::`), and only while the runner ignores commands.
    expect(lines[forged]!.trimStart()).toBe(':\\:add-mask::forged`');
    expect(forged).toBeGreaterThan(start);
    expect(forged).toBeLessThan(resume);
    // Each run draws a new token, so report text cannot know it in advance.
    const again = envFor({ cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    await emitReport(report, sources, undefined, again);
    expect(again.io.out()).not.toContain(token);
  });

  test('an explicit format in GitHub Actions is written byte-exact, without the guard', async () => {
    const env = envFor({ cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, ['json'], env);
    expect(env.io.out()).toBe(plain('json', report, sources, dir));
  });

  test('in GitHub Actions a step summary that cannot be written is a warning, not a failure', async () => {
    const summary = join(dir, 'missing-folder', 'summary.md');
    const env = envFor({ cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, undefined, env);
    expect(env.io.err()).toContain('warning: cannot append the step summary to $GITHUB_STEP_SUMMARY');
    expect(env.io.out()).toContain('::error file=a.yaml');
  });

  test('NAME=FILE writes each file whole, without colour; NAME goes to stdout', async () => {
    const env = envFor({ cwd: dir, tty: true, env: { FORCE_COLOR: '1' } });
    const { report, sources } = reportIn(dir);
    await mkdir(join(dir, 'out'));
    await emitReport(report, sources, ['json=out/report.json', 'sarif=out/report.sarif', 'human', 'human=out/report.txt'], env);
    expect(await readFile(join(dir, 'out/report.json'), 'utf8')).toBe(plain('json', report, sources, dir));
    expect(await readFile(join(dir, 'out/report.sarif'), 'utf8')).toBe(plain('sarif', report, sources, dir));
    expect(await readFile(join(dir, 'out/report.txt'), 'utf8')).toBe(plain('human', report, sources, dir));
    expect(env.io.out()).toContain(`${ESC}31merror`);
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['report.json', 'report.sarif', 'report.txt']);
  });

  test('only files requested: stdout stays empty', async () => {
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, ['junit=junit.xml'], env);
    expect(env.io.out()).toBe('');
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toContain('<testsuites name="sessionctl validate" tests="1" failures="1" errors="0">');
  });

  test.each([
    ['a TTY', { tty: true }, true],
    ['a TTY with NO_COLOR', { tty: true, env: { NO_COLOR: '1' } }, false],
    ['a pipe', { tty: false }, false],
    ['a pipe with FORCE_COLOR', { tty: false, env: { FORCE_COLOR: '1' } }, true],
    ['a TTY with FORCE_COLOR=0', { tty: true, env: { FORCE_COLOR: '0' } }, false],
  ])('colour on stdout: %s', async (_name, options, coloured) => {
    const env = envFor({ cwd: dir, ...options });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, undefined, env);
    expect(env.io.out().includes(ESC)).toBe(coloured);
  });

  test('a bad spec fails before anything is written', async () => {
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir);
    await expect(emitReport(report, sources, ['json=a.json', 'sarif', 'human'], env)).rejects.toThrow(UsageError);
    await expect(emitReport(report, sources, ['json=a.json', 'bogus=b.txt'], env)).rejects.toThrow(UsageError);
    expect(env.io.out()).toBe('');
    expect(await readdir(dir)).toEqual([]);
  });

  test('missing folders on the way to a report file are created', async () => {
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir);
    await emitReport(report, sources, ['sarif=reports/ci/out.sarif'], env);
    expect(await readFile(join(dir, 'reports/ci/out.sarif'), 'utf8')).toBe(plain('sarif', report, sources, dir));
  });

  test('a path through a regular file is an InputError naming the file, and leaves nothing behind', async () => {
    await writeFile(join(dir, 'notes.txt'), 'x');
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir);
    const err = await emitReport(report, sources, ['json=notes.txt/report.json'], env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe('cannot write the json report: a part of the path is not a folder');
    expect((err as InputError).file).toBe('notes.txt/report.json');
    expect(await readdir(dir)).toEqual(['notes.txt']);
    expect(env.io.out()).toBe('');
  });

  test('a folder where the file should go is an InputError; no temporary file is left', async () => {
    await mkdir(join(dir, 'report.json'));
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir);
    await expect(emitReport(report, sources, ['json=report.json'], env)).rejects.toThrow(InputError);
    expect(await readdir(dir)).toEqual(['report.json']);
    expect((await stat(join(dir, 'report.json'))).isDirectory()).toBe(true);
  });

  test('the API key never reaches a report file or stdout', async () => {
    const env = envFor({ cwd: dir });
    const { report, sources } = reportIn(dir, `the value ${SECRET} looks like an API key`);
    await emitReport(report, sources, ['json=r.json', 'sarif=r.sarif', 'markdown=r.md'], env);
    for (const f of ['r.json', 'r.sarif', 'r.md']) {
      const text = await readFile(join(dir, f), 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text).toContain('the value **** looks like an API key');
    }
  });
});

describe('emitReport of a big JSON report (written in pieces)', () => {
  /** 2,500 files, and 1,500 findings of which the last names the key: it sits in a late piece. */
  function bigReport(cwd: string): Report {
    const files = Array.from({ length: 2500 }, (_, i) => join(cwd, `m${i}.yaml`));
    const diagnostics = files.slice(0, 1500).map((file, i) => ({
      code: 'schema/type' as const,
      severity: 'error' as const,
      message: i === 1499 ? `the value ${SECRET} looks like an API key` : `finding ${i}`,
      file,
      range: { start: { line: 1, col: 1 }, end: { line: 1, col: 2 } },
    }));
    return { command: 'validate', files, diagnostics, summary: { errors: 1500, warnings: 0, infos: 0, files: 2500, manifests: 2500 } };
  }

  test('stdout and a file get the text render gives, redacted, in pieces that end at line ends', async () => {
    const env = envFor({ cwd: dir });
    const report = bigReport(dir);
    // The streams are redacted as the CLI's are (`Redactor.wrap`), one write at a time.
    const writes: string[] = [];
    env.io.stdout = env.redactor.wrap({ write: (s: string) => void writes.push(s), isTTY: false });
    await emitReport(report, new Map(), ['json', 'json=big.json'], env);
    const expected = plain('json', report, new Map(), dir).replace(SECRET, '****');
    expect(expected).toContain('"message": "the value **** looks like an API key"');
    expect(writes.join('')).toBe(expected);
    expect(await readFile(join(dir, 'big.json'), 'utf8')).toBe(expected);
    expect(writes.length).toBeGreaterThan(5);
    for (const piece of writes) expect(piece.endsWith('\n')).toBe(true);
  });
});

describe('writeFileAtomic', () => {
  test('replaces an existing file whole and leaves no temporary file', async () => {
    const target = join(dir, 'state.json');
    await writeFile(target, 'old content that is longer than the new one');
    await writeFileAtomic(target, '{"new":true}');
    expect(await readFile(target, 'utf8')).toBe('{"new":true}');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  test('mode 0600 for files only the user may read', async () => {
    const target = join(dir, 'secret.json');
    await writeFileAtomic(target, 'x', { mode: 0o600 });
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });

  test('writes bytes as given', async () => {
    const target = join(dir, 'b.bin');
    await writeFileAtomic(target, new Uint8Array([0, 1, 2, 255]));
    expect([...(await readFile(target))]).toEqual([0, 1, 2, 255]);
  });

  test('a failed rename keeps the old content and removes the temporary file', async () => {
    const target = join(dir, 'taken');
    await mkdir(target);
    await writeFile(join(target, 'inside'), 'keep');
    await expect(writeFileAtomic(target, 'new')).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/) });
    expect(await readdir(dir)).toEqual(['taken']);
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('keep');
  });
});
