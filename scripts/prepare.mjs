// `npm run prepare`: builds dist/ whenever npm prepares this package: after `npm ci` in a clone,
// and when it is installed from git, which is how pre-commit installs the sessionctl-validate hook
// (`npm install -g git+file://...`). In that global install npm runs this script without putting
// the devDependencies (the TypeScript compiler) in place first (npm/cli#8440), so they are
// installed here when missing. Output goes to stderr: `npm pack` callers read stdout.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The settings of the global install that is running us (global, prefix, install-links ...) must
// not turn the nested install into another global one.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_(global|prefix|location|install_links|allow_git)$/i.test(key)));
const run = (args) => execFileSync(npm, args, { cwd: root, env, stdio: ['ignore', 2, 2], shell: process.platform === 'win32' });

if (!existsSync(path.join(root, 'node_modules', 'typescript', 'package.json'))) {
  run(['install', '--include=dev', '--ignore-scripts', '--no-save', '--no-audit', '--no-fund', '--global=false', '--prefix', root]);
}
run(['run', '-s', 'build']);
