import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Workflow {
  jobs: Record<string, { 'runs-on': string; strategy?: { matrix: { node: string[] } }; steps: Array<{ uses?: string; run?: string; with?: Record<string, string> }> }>;
}

test('CI runs .ci/run on ubuntu with Node 20 and 22, after checkout and setup-node', () => {
  const wf = YAML.parse(readFileSync(path.join(root, '.github/workflows/ci.yml'), 'utf8')) as Workflow;
  const job = wf.jobs['test']!;
  expect(job['runs-on']).toMatch(/^ubuntu-/);
  expect(job.strategy?.matrix.node).toEqual(['20', '22']);
  expect(job.steps.map((s) => s.uses ?? s.run)).toEqual(['actions/checkout@v4', 'actions/setup-node@v4', 'bash .ci/run']);
  expect(job.steps[1]!.with?.['node-version']).toBe('${{ matrix.node }}');
});
