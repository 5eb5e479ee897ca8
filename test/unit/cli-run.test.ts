import { describe, expect, it } from 'vitest';
import { exitCodeForDiagnostics } from '../../src/cli/exit-codes.js';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { runCli } from '../helpers/run-cli.js';

const at = (code: Diagnostic['code'], severity: Diagnostic['severity']): Diagnostic => ({ code, severity, message: 'm' });

describe('exit codes', () => {
  it.each([
    ['nothing', [], false, 0],
    ['a warning', [at('yaml/directive', 'warning')], false, 0],
    ['a warning with --strict', [at('yaml/directive', 'warning')], true, 1],
    ['an error', [at('schema/type', 'error')], false, 1],
    ['an unreadable file beats findings', [at('schema/type', 'error'), at('input/unreadable', 'error')], false, 2],
    ['a service failure beats findings', [at('drift/changed', 'error'), at('apply/create-failed', 'error')], false, 3],
    ['a state that could not be written beats a service failure', [at('apply/create-failed', 'error'), at('state/write-failed', 'error'), at('drift/changed', 'error')], false, 5],
    ['an input error beats a state that could not be written', [at('state/write-failed', 'error'), at('config/type', 'error')], false, 2],
    ['a state write failure turned down to a warning does not decide it', [at('state/write-failed', 'warning')], false, 0],
  ] as const)('%s', (_name, diagnostics, strict, expected) => {
    expect(exitCodeForDiagnostics(diagnostics, { strict })).toBe(expected);
  });

  it('an unknown command is a usage error', async () => {
    const r = await runCli(['no-such-command']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('--version prints the package version and exits 0', async () => {
    const r = await runCli(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
