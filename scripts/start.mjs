// `npm start`: the main job on a fresh clone. Lints the examples, then plans, applies and diffs them
// against an emulator started in-process, so a newcomer sees the whole loop offline. State and
// emulator data go to a new temporary folder each run, so repeated runs start from nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'dist', 'sessionctl.js');
const state = path.join(mkdtempSync(path.join(tmpdir(), 'sessionctl-start-')), 'state.json');

const steps = [
  ['validate examples', 'lint: YAML, schema, rules', ['validate', 'examples']],
  ['plan examples', 'what apply would do; no network', ['plan', 'examples', '--state', state]],
  ['apply examples', 'against an in-process emulator', ['apply', 'examples', '--emulator', '--state', state]],
  ['diff examples', 'declared vs effective', ['diff', 'examples', '--emulator', '--state', state]],
];

for (const [n, [title, what, args]] of steps.entries()) {
  process.stdout.write(`\n== ${n + 1}/${steps.length}  sessionctl ${title}   (${what})\n\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
process.stdout.write(`\nState and emulator data: ${path.dirname(state)} (a new folder each run)\n`);
