import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver/node';
import { docsAnchor, type Code } from '../../../src/diagnostics/codes.js';
import { LspClient } from '../../helpers/lsp-client.js';

/**
 * The language server's findings are validate's: for every golden case and every example, the
 * built server (a child process, driven over stdio by a real protocol client) publishes for each
 * file exactly the findings `validate --format json` reports for it, by code, severity, range and
 * message. The editor's default treats an unset `${VAR}` as a placeholder, so validate runs with
 * `--unset-variables placeholder` here (the setting `unsetVariables: error` is compared below).
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'dist/sessionctl.js');
const golden = join(root, 'test/golden');

interface Finding {
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  file?: string;
  range?: { start: { line: number; col: number }; end: { line: number; col: number } };
}

interface Case {
  name: string;
  /** The workspace folder the editor opens. */
  folder: string;
  /** Where validate runs, and its paths. */
  cwd: string;
  args: string[];
  env: Record<string, string>;
}

function goldenCases(): Case[] {
  return readdirSync(golden)
    .filter((name) => statSync(join(golden, name)).isDirectory())
    .sort()
    .map((name) => {
      const dir = join(golden, name);
      const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as { args: string[]; env?: Record<string, string>; cwd?: string };
      const args = spec.args.slice(1).filter((a, i, all) => a !== '--strict' && a !== '--unset-variables' && all[i - 1] !== '--unset-variables');
      return { name: `golden/${name}`, folder: dir, cwd: spec.cwd === undefined ? dir : join(dir, spec.cwd), args, env: spec.env ?? {} };
    });
}

/** The repository's examples/, every manifest below it opened. */
function exampleCases(): Case[] {
  const examples = join(root, 'examples');
  return [{ name: 'examples', folder: examples, cwd: examples, args: ['.'], env: {} }];
}

function validate(c: Case, extra: string[]): { files: string[]; diagnostics: Finding[] } {
  const r = spawnSync(process.execPath, [bin, 'validate', ...c.args, '--format', 'json', ...extra], {
    cwd: c.cwd,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...c.env },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { files: string[]; diagnostics: Finding[] };
}

const severities = { 1: 'error', 2: 'warning', 3: 'info' } as const;

/** A published diagnostic in validate's terms: 1-based, columns in UTF-16 units. */
function asFinding(d: LspDiagnostic): Omit<Finding, 'file'> {
  return {
    code: String(d.code),
    severity: severities[d.severity as 1 | 2 | 3],
    message: String(d.message),
    range: { start: { line: d.range.start.line + 1, col: d.range.start.character + 1 }, end: { line: d.range.end.line + 1, col: d.range.end.character + 1 } },
  };
}

function expected(findings: readonly Finding[], file: string): Array<Omit<Finding, 'file'>> {
  return findings
    .filter((f) => f.file === file)
    .map((f) => ({ code: f.code, severity: f.severity, message: f.message, range: f.range ?? { start: { line: 1, col: 1 }, end: { line: 1, col: 1 } } }));
}

async function compare(c: Case, validateFlags: string[], initializationOptions?: unknown): Promise<number> {
  const report = validate(c, validateFlags);
  const files = [...new Set([...report.files, ...report.diagnostics.flatMap((d) => (d.file === undefined ? [] : [d.file]))])];
  const client = await LspClient.start({ folders: [c.folder], cwd: c.cwd, env: c.env, initializationOptions });
  try {
    const uris = new Map<string, string>();
    for (const file of files) uris.set(file, await client.open(resolve(c.cwd, file), readFileSync(resolve(c.cwd, file), 'utf8')));
    for (const file of files) {
      const published = await client.diagnostics(uris.get(file)!, 1);
      for (const d of published) {
        const code = String(d.code);
        expect(d.codeDescription?.href).toMatch(code.startsWith('policy/') ? /\/docs\/policies\.md$/ : new RegExp(`/docs/rules\\.md#${docsAnchor(code as Code)}$`));
      }
      expect({ file, findings: published.map(asFinding) }).toEqual({ file, findings: expected(report.diagnostics, file) });
    }
  } finally {
    expect(await client.stop()).toBe(0);
  }
  return report.diagnostics.length;
}

describe('lsp diagnostics equal validate --format json', () => {
  const cases = [...goldenCases(), ...exampleCases()];

  it('has the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(29);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', { timeout: 30_000 }, async (_name, c) => {
    await compare(c, ['--unset-variables', 'placeholder']);
  });

  it.each(cases.filter((c) => c.name.includes('unset') || c.name.includes('per-user')).map((c) => [c.name, c] as const))(
    '%s with unsetVariables: error',
    { timeout: 30_000 },
    async (_name, c) => {
      expect(await compare(c, [], { unsetVariables: 'error' })).toBeGreaterThan(0);
    },
  );
});
