// Prints the apply outputs of the GitHub Action for $GITHUB_OUTPUT, from sessionctl's JSON report:
//   session-ids={"<name>":"trs_..."}   mcp-urls={"<name>":"https://..."}
// A manifest applied for several users (user_id from ${VAR}) is keyed "<name>/<user_id>".
// Only manifests with a session are listed; a failed create has none.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const items = Array.isArray(report?.applied?.items) ? report.applied.items : [];

const withSession = items.filter((e) => typeof e?.name === 'string' && typeof e.session_id === 'string');
const count = new Map();
for (const e of withSession) count.set(e.name, (count.get(e.name) ?? 0) + 1);
const ids = {};
const urls = {};
for (const e of withSession) {
  const key = count.get(e.name) > 1 && typeof e.user_id === 'string' ? `${e.name}/${e.user_id}` : e.name;
  ids[key] = e.session_id;
  if (typeof e.mcp_url === 'string') urls[key] = e.mcp_url;
}
// JSON.stringify never emits a raw newline, so each value stays on its one output line.
process.stdout.write(`session-ids=${JSON.stringify(ids)}\nmcp-urls=${JSON.stringify(urls)}\n`);
