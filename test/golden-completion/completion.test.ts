import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { allCommands } from '../../src/cli/commands/index.js';
import { buildProgram } from '../../src/cli/program.js';
import { Redactor } from '../../src/cli/redact.js';
import { commandTree, completionModel } from '../../src/cli/completion/model.js';
import { version } from '../../src/version.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { ValueMasker } from '../../src/util/sensitive.js';

const shells = ['bash', 'zsh', 'fish'] as const;

function model() {
  const program = buildProgram({ io: memoryIo(), redactor: new Redactor(), masker: new ValueMasker(), setExitCode: () => undefined }, allCommands);
  return completionModel(program);
}

describe('sessionctl completion', () => {
  test.each(shells)('%s script matches the golden file', async (shell) => {
    const result = await runCli(['completion', shell]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    await expect(result.stdout.replaceAll(version, '<version>')).toMatchFileSnapshot(`./sessionctl.${shell}`);
  });

  test('an unknown shell is a usage error', async () => {
    const result = await runCli(['completion', 'powershell']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("'powershell' is invalid for argument 'shell'");
    expect(result.stdout).toBe('');
  });

  test('every command of the tree appears in every script', async () => {
    const commands = commandTree(model()).filter((c) => c.path !== '');
    expect(commands.map((c) => c.path)).toContain('completion');
    for (const shell of shells) {
      const script = (await runCli(['completion', shell])).stdout;
      for (const c of commands) expect(script, `${shell}: ${c.path}`).toContain(c.path);
    }
  });
});

/**
 * Runs the generated bash function the way bash's `complete -F` does, once per list of words, in
 * one bash process, and returns each COMPREPLY.
 */
function completeBashMany(script: string, queries: readonly string[][], cwd?: string): string[][] {
  const dir = cwd ?? tempDir('completion');
  const file = path.join(dir, 'sessionctl.bash');
  writeFileSync(file, script);
  const quote = (w: string): string => `'${w.replace(/'/g, `'\\''`)}'`;
  const body = queries
    .map((words) => `COMP_WORDS=(${words.map(quote).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _sessionctl; printf '%s\\n' "\${COMPREPLY[@]}"; echo '<end>'`)
    .join('\n');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source "$1"\n${body}`, 'x', file], { cwd: dir, encoding: 'utf8' });
  const replies = out.split('<end>\n').slice(0, queries.length);
  expect(replies).toHaveLength(queries.length);
  return replies.map((r) => r.split('\n').filter((w) => w !== ''));
}

function completeBash(script: string, words: string[], cwd?: string): string[] {
  return completeBashMany(script, [words], cwd)[0]!;
}

describe('the bash script completes from the command tree', () => {
  test('is valid bash', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const dir = tempDir('completion');
    writeFileSync(path.join(dir, 's.bash'), script);
    expect(() => execFileSync('bash', ['-n', path.join(dir, 's.bash')])).not.toThrow();
  });

  // One bash process answers every case; on a loaded machine (CI, shared runners) it takes tens of seconds.
  test('subcommands, options and choices at every level', { timeout: 120_000 }, async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const cases: Array<{ what: string; words: string[]; check: (reply: string[]) => void }> = [];
    for (const c of commandTree(model())) {
      const prefix = ['sessionctl', ...(c.path === '' ? [] : c.path.split(' '))];
      for (const sub of c.commands) {
        cases.push({ what: `${c.path} ${sub.name}`, words: [...prefix, sub.name.slice(0, 3)], check: (r) => expect(r).toContain(sub.name) });
      }
      for (const option of c.options) {
        const long = option.flags.find((f) => f.startsWith('--'));
        if (long !== undefined) cases.push({ what: `${c.path} ${long}`, words: [...prefix, long.slice(0, 4)], check: (r) => expect(r).toContain(long) });
        if (option.takesValue && option.choices.length > 0) {
          const flag = option.flags[option.flags.length - 1]!;
          cases.push({ what: `${c.path} ${flag} VALUE`, words: [...prefix, flag, ''], check: (r) => expect(r).toEqual(option.choices) });
          // bash splits `--opt=value` at `=` (COMP_WORDBREAKS); both spellings complete.
          cases.push({ what: `${c.path} ${flag}=VALUE`, words: [...prefix, flag, '=', ''], check: (r) => expect(r).toEqual(option.choices) });
        }
      }
    }
    expect(cases.length).toBeGreaterThan(50);
    const replies = completeBashMany(script, cases.map((c) => c.words));
    cases.forEach((c, i) => {
      try {
        c.check(replies[i]!);
      } catch (err) {
        throw new Error(`completing \`${c.words.join(' ')}\` (${c.what}): ${(err as Error).message}`);
      }
    });
  });

  test('the completion command offers the three shells', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    expect(completeBash(script, ['sessionctl', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(completeBash(script, ['sessionctl', 'completion', 'f'])).toEqual(['fish']);
    expect(completeBash(script, ['sessionctl', 'comp'])).toEqual(['completion']);
    expect(completeBash(script, ['sessionctl', '--vers'])).toEqual(['--version']);
  });

  test('--changed-since completes the branches and tags of the repository', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const repo = tempDir('completion-git');
    const env = { PATH: process.env['PATH'], GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env });
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'base');
    git('branch', 'feature/x');
    git('tag', 'v1.0.0');
    expect(completeBash(script, ['sessionctl', 'validate', 'sessions', '--changed-since', ''], repo)).toEqual(['feature/x', 'main', 'v1.0.0']);
    expect(completeBash(script, ['sessionctl', 'validate', '--changed-since', 'fe'], repo)).toEqual(['feature/x']);
  });
});
