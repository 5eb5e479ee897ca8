// A lock holder in its own process, for the state tests: takes the lock of the state named by
// argv[2] (a --state value; PG* variables from the environment) with the real liveness check of
// the CLI, and a PostgreSQL lease of argv[3] ms when given, prints "locked <id>", then obeys lines on stdin: "record NAME" records an entry and
// prints "recorded NAME" or "refused NAME <message>"; "unlock" releases and exits. It holds the
// lock until told or killed. Uses the built dist/ (npm test builds before it runs the suite).
import { createInterface } from 'node:readline';
import { stateBackend } from '../../../dist/state/backend.js';
import { processLock } from '../../../dist/cli/process-lock.js';

const lease = process.argv[3] === undefined ? {} : { lockLeaseMs: Number(process.argv[3]) };
const backend = stateBackend(process.argv[2], process.cwd(), { env: process.env, ...lease });
let state;
try {
  state = await backend.openLocked(processLock());
} catch (err) {
  process.stdout.write(`failed ${err.message}\n`);
  process.exit(2);
}
const holder = await backend.lockHolder();
process.stdout.write(`locked ${holder?.id}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, name] = line.split(' ');
  if (cmd === 'record') {
    try {
      await state.record({ name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'http://x/mcp', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: new Date().toISOString() });
      process.stdout.write(`recorded ${name}\n`);
    } catch (err) {
      process.stdout.write(`refused ${name} ${err.message}\n`);
    }
  } else if (cmd === 'unlock') {
    await state.unlock();
    process.stdout.write('unlocked\n');
    process.exit(0);
  }
}
// stdin closed: the test process is gone (a mutation run ends a runner that timed out). Without
// this, the open connections would keep the holder, and its lock, alive for ever.
process.exit(0);
