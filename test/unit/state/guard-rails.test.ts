import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { bindingFor, checkBinding, describeService, needsBinding, parseBinding, serviceIdentity, type StateBinding } from '../../../src/state/binding.js';
import { guardState, type GuardInput } from '../../../src/state/guard.js';
import { checkStateLocation } from '../../../src/state/location.js';

function refusal(run: () => unknown): [string, string | undefined] | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return [(err as UsageError).message, (err as UsageError).hint];
  }
}

const NEAR = 'did you mean postgres://? (a file path has no scheme; write ./NAME for a file whose name has a colon)';
const FAR = 'give a postgres:// URL, or a file path (./NAME for a file whose name has a colon)';
const scheme = (s: string): string => `the state location has the scheme "${s}:", which sessionctl does not read; it is neither a postgres:// URL nor a file path`;

describe('checkStateLocation', () => {
  test.each([
    ['postgres://u@h/db'],
    ['postgresql://u@h/db?workspace=production'],
    ['POSTGRES://u@h/db'],
    ['.sessionctl/state.json'],
    ['/abs/state.json'],
    ['c:state.json'], // one letter before the colon: a Windows drive, a path
    ['./odd:name.json'],
    ['state.json'],
    ['with space inside.json'],
  ])('%j is a location', (spec) => {
    expect(refusal(() => checkStateLocation(spec))).toBeUndefined();
  });

  test.each([
    ['postgress://u@h/db', scheme('postgress'), NEAR],
    ['postgre://u@h/db', scheme('postgre'), NEAR],
    ['pg://u@h/db', scheme('pg'), NEAR],
    ['psql://u@h/db', scheme('psql'), NEAR],
    ['Postgress://u@h/db', scheme('Postgress'), NEAR],
    ['potsgres://u@h/db', scheme('potsgres'), NEAR],
    ['mysql://u:secret@h/db', scheme('mysql'), FAR],
    ['https://u@h/db', scheme('https'), FAR],
    ['file:///tmp/state.json', scheme('file'), FAR],
    ['odd:name.json', scheme('odd'), FAR],
    ['postgres:/u@h/db', 'the state location starts with "postgres:" but not "postgres://"', 'write it as postgres://USER@HOST:5432/DATABASE?workspace=NAME'],
    ['postgresql:u@h/db', 'the state location starts with "postgresql:" but not "postgresql://"', 'write it as postgresql://USER@HOST:5432/DATABASE?workspace=NAME'],
    [' state.json', 'the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)', 'remove them: sessionctl takes the location exactly as given'],
    ['postgres://u@h/db\r\n', 'the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)', 'remove them: sessionctl takes the location exactly as given'],
    ['\tstate.json', 'the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)', 'remove them: sessionctl takes the location exactly as given'],
    ['state\u0000.json', 'the state location holds a control character (a tab, a line break, an escape)', 'write the path or URL without it'],
    ['state\u009b.json', 'the state location holds a control character (a tab, a line break, an escape)', 'write the path or URL without it'],
    ['state\u007f.json', 'the state location holds a control character (a tab, a line break, an escape)', 'write the path or URL without it'],
    ['', 'the state location is empty', 'give --state a file path or a postgres:// URL, or unset SESSIONCTL_STATE'],
  ])('%j is refused', (spec, message, hint) => {
    expect(refusal(() => checkStateLocation(spec))).toEqual([message, hint]);
  });

  test('a refused URL is never echoed whole: its password stays out', () => {
    const [message, hint] = refusal(() => checkStateLocation('mysql://u:hunter2@h/db'))!;
    expect(`${message} ${hint}`).not.toContain('hunter2');
  });
});

const KEY = 'sk-test-key-0001';
const NOW = new Date('2026-11-28T10:00:00.000Z');
const SALT = '0123456789abcdef0123456789abcdef';

describe('bindings', () => {
  test('bindingFor: the service, a salted HMAC of the key (never the key), the time', () => {
    const b = bindingFor(serviceIdentity('https://backend.composio.dev', KEY), NOW, SALT);
    expect(b).toEqual({ service: 'https://backend.composio.dev', project: `hmac-sha256:${SALT}:${b.project!.slice(-32)}`, bound_at: '2026-11-28T10:00:00.000Z' });
    expect(b.project).toMatch(/^hmac-sha256:[0-9a-f]{32}:[0-9a-f]{32}$/);
    expect(JSON.stringify(b)).not.toContain(KEY);
    // Another salt, another digest of the same key: two states' fingerprints cannot be matched.
    expect(bindingFor(serviceIdentity('https://backend.composio.dev', KEY), NOW, 'f'.repeat(32)).project!.slice(-32)).not.toBe(b.project!.slice(-32));
    expect(bindingFor(serviceIdentity('https://backend.composio.dev'), NOW, SALT)).toEqual({ service: 'https://backend.composio.dev', bound_at: '2026-11-28T10:00:00.000Z' });
    expect(bindingFor(serviceIdentity('emulator', KEY), NOW, SALT)).toEqual({ service: 'emulator', bound_at: '2026-11-28T10:00:00.000Z' });
    // A random salt each time.
    const [x, y] = [bindingFor(serviceIdentity('https://a.example', KEY), NOW), bindingFor(serviceIdentity('https://a.example', KEY), NOW)];
    expect(x.project).not.toBe(y.project);
  });

  // Made in each test, not while the file is collected: mutation testing activates a mutant per test.
  const boundBinding = (): StateBinding => bindingFor(serviceIdentity('https://backend.composio.dev', KEY), NOW, SALT);

  test('checkBinding: the same service and key pass; none recorded, or a run without a key, pass on the URL', () => {
    const bound = boundBinding();
    for (const [binding, identity] of [
      [bound, serviceIdentity('https://backend.composio.dev', KEY)],
      [bound, serviceIdentity('https://backend.composio.dev')],
      [undefined, serviceIdentity('https://other.example', 'k')],
      [{ service: 'https://backend.composio.dev', bound_at: '' }, serviceIdentity('https://backend.composio.dev', 'any')],
      [{ service: 'http://127.0.0.1:4010', bound_at: '' }, serviceIdentity('http://localhost:9999', 'any')],
      [{ service: 'http://127.0.0.1:4010', bound_at: '' }, serviceIdentity('http://127.0.0.2:1', 'any')],
      [{ service: 'emulator', bound_at: '' }, serviceIdentity('emulator', 'any')],
    ] as Array<[StateBinding | undefined, ReturnType<typeof serviceIdentity>]>) {
      expect(refusal(() => checkBinding(binding, identity, 'S'))).toBeUndefined();
    }
  });

  test('checkBinding: another key, another URL, the emulator against a service and back are refused, naming both', () => {
    const bound = boundBinding();
    const other = refusal(() => checkBinding(bound, serviceIdentity('https://backend.composio.dev', 'sk-staging'), 'S'))!;
    const ours = bound.project!.slice(-32, -24);
    expect(other[0]).toMatch(new RegExp(`^the state S is bound to another API key \\(key fingerprint ${ours}; this run's key: [0-9a-f]{8}\\) at https://backend.composio.dev: `));
    expect(other[0]).not.toContain('sk-staging');
    expect(other[1]).toBe("use the key of the state's project; after a key rotation, run `sessionctl state rebind` with the new key (it reads every recorded session with it first)");
    expect(refusal(() => checkBinding({ service: 'emulator', bound_at: '' }, serviceIdentity('https://emulator', KEY), 'S'))?.[0]).toBe(
      'the state S is bound to the in-process emulator (--emulator), and this run is against https://emulator; nothing was sent and nothing was written',
    );
    expect(refusal(() => checkBinding(bound, serviceIdentity('https://staging.example.com', KEY), 'S'))).toEqual([
      'the state S is bound to https://backend.composio.dev, and this run is against https://staging.example.com; nothing was sent and nothing was written',
      'point --state at the state of this service; if these same sessions now answer at this URL, run `sessionctl state rebind` (it reads every recorded session there first)',
    ]);
    const emulatorHint = 'give the emulator a state of its own (such as --state /tmp/demo/state.json), or unset SESSIONCTL_STATE for emulator runs';
    expect(refusal(() => checkBinding(bound, serviceIdentity('emulator'), 'S'))).toEqual([
      'the state S is bound to https://backend.composio.dev, and this run is against the in-process emulator (--emulator); nothing was sent and nothing was written',
      emulatorHint,
    ]);
    expect(refusal(() => checkBinding({ service: 'emulator', bound_at: '' }, serviceIdentity('http://127.0.0.1:4010', KEY), 'S'))?.[1]).toBe(emulatorHint);
    expect(refusal(() => checkBinding({ service: 'http://127.0.0.1:4010', bound_at: '' }, serviceIdentity('emulator'), 'S'))?.[1]).toBe(emulatorHint);
    expect(refusal(() => checkBinding({ service: 'http://127.0.0.1:4010', bound_at: '' }, serviceIdentity('https://backend.composio.dev'), 'S'))?.[0]).toBe(
      'the state S is bound to http://127.0.0.1:4010, and this run is against https://backend.composio.dev; nothing was sent and nothing was written',
    );
    expect(refusal(() => checkBinding({ service: 'https://backend.composio.dev', project: 'md5:x', bound_at: '' }, serviceIdentity('https://backend.composio.dev', KEY), 'S'))).toEqual([
      'the state S records a service binding that sessionctl cannot read (project "md5:x")',
      'run `sessionctl state rebind` to record it again',
    ]);
  });

  test('needsBinding: none, or one without a key when this run has one (never for the emulator)', () => {
    const bound = boundBinding();
    expect(needsBinding(undefined, serviceIdentity('https://a.example'))).toBe(true);
    expect(needsBinding(bound, serviceIdentity('https://backend.composio.dev', KEY))).toBe(false);
    expect(needsBinding({ service: 'https://a.example', bound_at: '' }, serviceIdentity('https://a.example', KEY))).toBe(true);
    expect(needsBinding({ service: 'https://a.example', bound_at: '' }, serviceIdentity('https://a.example'))).toBe(false);
    expect(needsBinding({ service: 'emulator', bound_at: '' }, serviceIdentity('emulator', KEY))).toBe(false);
    expect(describeService('emulator')).toBe('the in-process emulator (--emulator)');
    expect(describeService('https://a.example')).toBe('https://a.example');
  });

  test('parseBinding: as stored, or a clear refusal', () => {
    const bound = boundBinding();
    const corrupt = (why: string) => new Error(why);
    expect(parseBinding(undefined, corrupt)).toBeUndefined();
    expect(parseBinding(null, corrupt)).toBeUndefined();
    expect(parseBinding(bound, corrupt)).toStrictEqual(bound);
    expect(parseBinding({ service: 'emulator', bound_at: 't' }, corrupt)).toStrictEqual({ service: 'emulator', bound_at: 't' });
    for (const [raw, why] of [
      [[], '"binding" is not an object'],
      ['x', '"binding" is not an object'],
      [{ bound_at: 't' }, '"binding.service" is not a string'],
      [{ service: '', bound_at: 't' }, '"binding.service" is not a string'],
      [{ service: 's' }, '"binding.bound_at" is not a string'],
      [{ service: 's', bound_at: 't', project: 'hmac-sha256:zz' }, '"binding.project" is not a key fingerprint'],
      [{ service: 's', bound_at: 't', project: 7 }, '"binding.project" is not a key fingerprint'],
      [{ service: 's', bound_at: 't', project: `x${bound.project!}` }, '"binding.project" is not a key fingerprint'],
      [{ service: 's', bound_at: 't', project: `${bound.project!}0` }, '"binding.project" is not a key fingerprint'],
    ] as Array<[unknown, string]>) {
      expect(() => parseBinding(raw, corrupt)).toThrow(why);
    }
  });
});

describe('guardState', () => {
  const base: GuardInput = { kind: 'file', location: 'S', origin: { exists: false }, use: 'start' };

  test('a state that is there: nothing to say, whatever the use', () => {
    expect(guardState({ ...base, origin: { exists: true }, use: 'read' })).toEqual([]);
    expect(guardState({ ...base, origin: { exists: true }, requireState: true, ci: true })).toEqual([]);
  });

  test('starting one: a note; in CI a warning for a file, not for PostgreSQL; refused when required', () => {
    expect(guardState(base)).toEqual([{ level: 'note', message: 'new state at S (nothing is recorded there yet)' }]);
    expect(guardState({ ...base, ci: true })).toEqual([
      {
        level: 'warning',
        message: 'CI is set and no state file is at S: every manifest is planned for create, and apply creates each session again even if an earlier pipeline applied it',
        hint: 'keep the state of a pipeline in PostgreSQL (SESSIONCTL_STATE=postgres://USER@HOST/DATABASE?workspace=production, the password in PGPASSWORD); --require-state makes this an error',
      },
    ]);
    expect(guardState({ ...base, kind: 'postgres', ci: true })).toEqual([{ level: 'note', message: 'new state at S (nothing is recorded there yet)' }]);
    expect(guardState({ ...base, kind: 'postgres', origin: { exists: false, otherWorkspaces: ['production', 'staging'] } })).toEqual([
      { level: 'note', message: 'new workspace at S, beside the workspaces that exist: production, staging (nothing is recorded there yet)' },
    ]);
    expect(refusal(() => guardState({ ...base, requireState: true, ci: true }))).toEqual([
      'no state is at S, and this run requires one (--require-state): nothing was planned, sent or written',
      'restore the state or fix --state / SESSIONCTL_STATE; leave out --require-state only for the very first apply',
    ]);
    expect(refusal(() => guardState({ ...base, kind: 'postgres', requireState: true, origin: { exists: false, otherWorkspaces: ['production', 'staging'] } }))).toEqual([
      'no state is at S (the workspaces that exist: production, staging), and this run requires one (--require-state): nothing was planned, sent or written',
      'workspace names are case-sensitive: fix the workspace in --state / SESSIONCTL_STATE',
    ]);
  });

  test('without a service (the state commands), a binding is not checked', () => {
    expect(guardState({ ...base, origin: { exists: true, binding: { service: 'https://a.example', bound_at: '' } }, use: 'read' })).toEqual([]);
  });

  test('reading one that is not there fails; the binding is checked first', () => {
    expect(() => guardState({ ...base, use: 'read' })).toThrow(/^no state file is there/);
    expect(() => guardState({ ...base, kind: 'postgres', use: 'read', origin: { exists: false, otherWorkspaces: ['a'] } })).toThrow(/the workspaces that exist: a$/);
    const identity = serviceIdentity('https://b.example');
    expect(refusal(() => guardState({ ...base, origin: { exists: true, binding: { service: 'https://a.example', bound_at: '' } }, identity }))?.[0]).toBe(
      'the state S is bound to https://a.example, and this run is against https://b.example; nothing was sent and nothing was written',
    );
  });
});
