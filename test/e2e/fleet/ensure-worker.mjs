// One application process for the fleet tests: ensure(name, user) for each user of argv, at most
// IN_FLIGHT at once, through the built package as an application imports it. One JSON line per
// user on stdout ({user, session} or {user, error: class name}); a line "claims-sent" on stderr
// is not printed: the test watches the emulator for the creates it holds.
import { openSessions } from '../../../dist/index.js';

const [stateUrl, baseUrl, name, usersArg, inFlightArg] = process.argv.slice(2);
const users = usersArg.split(',');
const inFlight = Number(inFlightArg);
const sessions = await openSessions(stateUrl, {
  apiKey: process.env.FLEET_KEY,
  baseUrl,
  env: process.env,
  // A short lease, so that a test sees a dead holder's claims end; FLEET_CALL_MS shortens a sent one's.
  claimLeaseMs: 500,
  waitMs: 60_000,
  timeouts: { callMs: Number(process.env.FLEET_CALL_MS ?? 60_000) },
  maxConnections: 10,
});
let next = 0;
const lines = [];
async function lane() {
  while (next < users.length) {
    const user = users[next++];
    try {
      const s = await sessions.ensure(name, user);
      lines.push(JSON.stringify({ user, session: s.sessionId, version: s.version }));
    } catch (err) {
      lines.push(JSON.stringify({ user, error: err.name, message: err.message }));
    }
  }
}
await Promise.all(Array.from({ length: Math.min(inFlight, users.length) }, lane));
await sessions.close();
process.stdout.write(lines.join('\n') + '\n');
