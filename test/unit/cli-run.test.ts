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
