import { describe, expect, test } from 'vitest';
import { importCommand } from '../../../src/apply/import-command.js';

describe('importCommand: the line that adopts a session the state could not record', () => {
  test.each<[string, [string, string, string | undefined, string], string]>([
    ['the default state file: no --state', ['a', 'trs_abc', 'm/a.yaml', '/w/.sessionctl/state.json'], 'sessionctl import a trs_abc m/a.yaml'],
    ['another state file: relative to where the run ran', ['a', 'trs_abc', 'm/a.yaml', '/w/st/state.json'], 'sessionctl import a trs_abc m/a.yaml --state st/state.json'],
    ['a state file outside the folder', ['a', 'trs_abc', 'm/a.yaml', '/states/prod.json'], 'sessionctl import a trs_abc m/a.yaml --state ../states/prod.json'],
    ['a manifest read from standard input: no file to name', ['a', 'trs_abc', undefined, '/w/.sessionctl/state.json'], 'sessionctl import a trs_abc'],
    [
      'a PostgreSQL state: its URL, quoted for the shell',
      ['a', 'trs_abc', 'm/a.yaml', 'postgres://ci@db:5432/sessionctl?schema=sessionctl&workspace=prod'],
      "sessionctl import a trs_abc m/a.yaml --state 'postgres://ci@db:5432/sessionctl?schema=sessionctl&workspace=prod'",
    ],
    ['a password in the URL is never written out', ['a', 'trs_abc', 'm/a.yaml', 'postgres://ci:hunter2@db/sessionctl'], 'sessionctl import a trs_abc m/a.yaml --state postgres://ci@db/sessionctl'],
    ["words with spaces and quotes: single-quoted, a ' closed and reopened", ['a', 'trs_a-b_c', "my files/it's.yaml", '/w/my state.json'], "sessionctl import a trs_a-b_c 'my files/it'\\''s.yaml' --state 'my state.json'"],
  ])('%s', (_what, [name, id, file, location], expected) => {
    expect(importCommand(name, id, file, location, '/w')).toBe(expected);
  });
});
