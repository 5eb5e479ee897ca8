// Mutation testing, one module at a time (docs/testing.md).
//
// Usage: npm run mutate                          the src/ files changed since main's merge base
//        npm run mutate -- --since REF           ... since REF's merge base with HEAD
//        npm run mutate -- src/config/drift.ts   named modules
//        npm run mutate -- --force ...           ignore the module's incremental results
//        npm run mutate -- --concurrency 1 ...   fewer test runners (the config's 2 fills both cores)
//
// Each module gets its own incremental file and report under reports/mutation/ (git-ignored),
// and ends with one line in the table format of docs/testing.md. Exit 0 when every module
// reached 90 %, 1 when one did not, 2 on bad arguments.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = 90;
const usage = 'usage: npm run mutate -- [--since REF] [--force] [--concurrency N] [src/module.ts ...]';

function fail(message) {
  console.error(`mutate: ${message}\n${usage}`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { since: undefined, force: false, concurrency: undefined, modules: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--since') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) fail(`${arg} needs a value`);
      options.since = value;
    } else if (arg === '--concurrency') {
      const value = argv[++i];
      if (value === undefined || !/^[1-9][0-9]*$/.test(value)) fail(`${arg} needs a whole number of runners, 1 or more`);
      options.concurrency = value;
    } else if (arg === '--force') options.force = true;
    else if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else if (arg.startsWith('-')) fail(`unknown option ${arg}`);
    else options.modules.push(arg);
  }
  if (options.since !== undefined && options.modules.length > 0) fail('give --since or modules, not both');
  return options;
}

function git(...args) {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) fail(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.split('\n').filter((l) => l !== '');
}

/**
 * The modules only the PostgreSQL tests reach (postgres-url.ts parses text and is tested without a
 * server): without a server those tests skip, and every mutant would read "no coverage".
 */
const needsDatabase = (module) => /^src\/state\/postgres-(?!url\.ts$)[^/]+\.ts$/.test(module);

/**
 * Whether the server the PostgreSQL tests would use answers (test/setup/postgres.ts finds it the
 * same way: SESSIONCTL_TEST_DATABASE_URL, else the libpq variables); undefined when it does, else why not.
 */
async function databaseProblem(env) {
  const url = env.SESSIONCTL_TEST_DATABASE_URL;
  const client = new pg.Client(
    url !== undefined && url !== ''
      ? { connectionString: url, connectionTimeoutMillis: 3000 }
      : {
          host: env.PGHOST || '127.0.0.1',
          port: Number(env.PGPORT || '5432'),
          user: env.PGUSER || 'sessionctl_test',
          database: env.PGDATABASE || 'sessionctl_test',
          password: env.PGPASSWORD ?? '',
          connectionTimeoutMillis: 3000,
        },
  );
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return err.message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const isModule = (file) => /^src\/.+\.ts$/.test(file) && !file.endsWith('.d.ts');

/** The src/ modules changed (committed, staged, in the work tree or new) since REF's merge base. */
function changedSince(ref) {
  const [base] = git('merge-base', 'HEAD', ref);
  const files = [...git('diff', '--name-only', '--diff-filter=d', base), ...git('ls-files', '--others', '--exclude-standard', 'src')];
  return [...new Set(files)].filter(isModule).sort();
}

function checkModule(file) {
  const rel = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
  if (!isModule(rel)) fail(`${file} is not a TypeScript module under src/`);
  if (!existsSync(path.join(root, rel))) fail(`${file} does not exist`);
  return rel;
}

/** Stryker's JSON report (mutation-testing-report-schema) -> counts and survivors of one file. */
function summarise(report, module) {
  const file = report.files[module] ?? { mutants: [] };
  const count = (status) => file.mutants.filter((m) => m.status === status).length;
  const timedOut = count('Timeout');
  const killed = count('Killed') + timedOut;
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + survived + noCoverage;
  const score = valid === 0 ? 100 : (100 * killed) / valid;
  const survivors = file.mutants
    .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    .map((m) => `  ${module}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName}: ${JSON.stringify(m.replacement ?? '')}`);
  return { killed, timedOut, survived, noCoverage, errors: count('CompileError') + count('RuntimeError'), score, survivors };
}

function run(module, options) {
  const slug = module.replace(/^src\//, '').replace(/\.ts$/, '').replace(/[/.]/g, '-');
  const dir = path.join(root, 'reports', 'mutation');
  mkdirSync(path.join(dir, 'incremental'), { recursive: true });
  const args = ['stryker', 'run', '--mutate', module, '--incrementalFile', `reports/mutation/incremental/${slug}.json`];
  if (options.force) args.push('--force');
  if (options.concurrency !== undefined) args.push('--concurrency', options.concurrency);
  console.error(`mutate: ${module}`);
  const r = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`mutate: stryker failed on ${module} (exit ${r.status ?? r.signal})`);
    return undefined;
  }
  const jsonFile = path.join(dir, 'mutation.json');
  copyFileSync(jsonFile, path.join(dir, `${slug}.json`));
  return summarise(JSON.parse(readFileSync(jsonFile, 'utf8')), module);
}

const options = parseArgs(process.argv.slice(2));
const modules = options.modules.length > 0 ? options.modules.map(checkModule) : changedSince(options.since ?? 'main');
if (modules.length === 0) {
  console.error(`mutate: no module under src/ changed since ${options.since ?? 'main'}`);
  process.exit(0);
}

const rows = [];
let below = 0;
const noDatabase = modules.some(needsDatabase) ? await databaseProblem(process.env) : undefined;
for (const module of modules) {
  if (noDatabase !== undefined && needsDatabase(module)) {
    console.error(
      `mutate: ${module} cannot be measured: its tests need a PostgreSQL server and none answered (${noDatabase}); set PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE (or SESSIONCTL_TEST_DATABASE_URL) as for npm test`,
    );
    below++;
    rows.push(`| ${module} | not measured: no PostgreSQL server | | | | | |`);
    continue;
  }
  const s = run(module, options);
  if (s === undefined) {
    below++;
    rows.push(`| ${module} | stryker failed | | | | | |`);
    continue;
  }
  if (s.score < target) below++;
  rows.push(`| ${module} | ${s.killed} | ${s.timedOut} | ${s.survived} | ${s.noCoverage} | ${s.errors} | ${s.score.toFixed(1)} % |`);
  if (s.survivors.length > 0) console.error(`survivors in ${module}:\n${s.survivors.join('\n')}`);
}
console.log('\n| module | killed | of which timed out | survived | no coverage | compile errors | score |\n|---|---|---|---|---|---|---|');
console.log(rows.join('\n'));
process.exitCode = below > 0 ? 1 : 0;
