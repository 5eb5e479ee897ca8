import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { OutcomeUnknownError } from '../../../src/fleet/errors.js';
import { shellWord } from '../../../src/util/shell-word.js';

describe('shellWord: a word a POSIX shell reads back unchanged, never runs', () => {
  test.each([
    ['alice@example.com', 'alice@example.com'],
    ['$(touch /tmp/pwned)', "'$(touch /tmp/pwned)'"],
    ["o'brien", "'o'\\''brien'"],
    ['a b`id`', "'a b`id`'"],
  ])('%s', (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
    expect(execFileSync('sh', ['-c', `printf %s ${quoted}`], { encoding: 'utf8' })).toBe(word);
  });

  test('the outcome-unknown error suggests a command that is safe to paste for a hostile user id', () => {
    const e = new OutcomeUnknownError('agent', '$(id)', '2026-11-28T10:00:00.000Z', 'timed out');
    expect(e.message).toContain("`sessionctl state rm agent --user-id '$(id)'`");
  });
});
