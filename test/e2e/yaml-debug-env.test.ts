import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * yaml prints every token to stdout when the process has LOG_TOKENS set, and every CST token with
 * LOG_STREAM (issue 30: `parseManifest` printed 171 lines for one manifest). sessionctl hides the
 * two from yaml: a library call and the CLI print only what they are asked for, and the caller's
 * environment is as it was afterwards. Run in a child Node, whose environment the test sets.
 */
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist');
const DEBUG = { LOG_TOKENS: '1', LOG_STREAM: '1' };
// `yes` is a scalar a YAML 1.1 parser reads otherwise: validate asks yaml about it a second time.
const MANIFEST = 'name: support-agent\nuser_id: no\ntoolkits: [gmail, github]\n';

function node(args: readonly string[], env: Record<string, string>, cwd?: string): Promise<{ exit: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd !== undefined ? { cwd } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((done) => child.once('close', (exit) => done({ exit, stdout, stderr })));
}

describe("yaml's LOG_TOKENS and LOG_STREAM", () => {
  test('parseManifest prints nothing, and the variables are as they were afterwards', async () => {
    const program = [
      `const { parseManifest } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});`,
      `const r = parseManifest(${JSON.stringify(MANIFEST)});`,
      "process.stderr.write(JSON.stringify([r.documents.length, r.diagnostics.map((d) => d.code), process.env.LOG_TOKENS, process.env.LOG_STREAM]));",
    ].join('\n');
    const r = await node(['--input-type=module', '-e', program], DEBUG);
    expect([r.exit, r.stdout, r.stderr]).toStrictEqual([0, '', JSON.stringify([1, ['yaml/yaml11-scalar'], '1', '1'])]);
  });

  test('validate --format json writes one JSON document', async () => {
    const dir = tempDir('yaml-debug');
    writeFileSync(join(dir, 'agent.yaml'), MANIFEST);
    const r = await node([join(dist, 'sessionctl.js'), 'validate', 'agent.yaml', '--format', 'json'], DEBUG, dir);
    expect(r.exit, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { diagnostics: Array<{ code: string }> };
    expect(report.diagnostics.map((d) => d.code)).toStrictEqual(['yaml/yaml11-scalar']);
  });
});
