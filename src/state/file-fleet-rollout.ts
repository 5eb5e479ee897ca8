import { entryKey } from './entry.js';
import { fleetPathOf, readFleetFile, sessionOf, writeFleetFile } from './file-fleet.js';
import { onPage, type FleetRollout } from './fleet-rollout.js';

/**
 * A rollout over the fleet file of a state file. The file serves one process: an application
 * serving ensure from it at the same time notices the pipeline's write at its next one and stops
 * (several processes need PostgreSQL). Each call reads the file, as it is small by nature.
 */
export function fileRollout(statePath: string, now: () => number = Date.now): FleetRollout {
  const path = fleetPathOf(statePath);
  return {
    sessions: async (query) => {
      const rows = (await readFleetFile(path)).map((r) => sessionOf(r, now())).filter((r) => onPage(r, query));
      return rows.sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0)).slice(0, query.limit);
    },
    rolledOut: async (done) => {
      const rows = await readFleetFile(path);
      const byKey = new Map(done.map((d) => [entryKey(d.name, d.user_id), d]));
      let n = 0;
      const next = rows.map((row) => {
        const d = byKey.get(entryKey(row.name, row.user_id));
        if (d === undefined || row.session_id !== d.session_id) return row;
        n++;
        return { ...row, config_version: d.config_version, version: d.version, body_hash: d.body_hash, tool_router_tools: [...d.tool_router_tools], mcp_url: d.mcp_url };
      });
      if (n > 0) await writeFleetFile(path, next);
      return n;
    },
    removeSessions: async (gone) => {
      const rows = await readFleetFile(path);
      const byKey = new Map(gone.map((g) => [entryKey(g.name, g.user_id), g.session_id]));
      const next = rows.filter((row) => byKey.get(entryKey(row.name, row.user_id)) !== row.session_id || row.session_id === '');
      if (next.length !== rows.length) await writeFleetFile(path, next);
      return rows.length - next.length;
    },
    createsUnderWay: async (name, before) =>
      (await readFleetFile(path)).filter((r) => r.name === name && r.session_id === '' && r.claim !== undefined && r.claim.state !== 'unknown' && r.claim.expires >= now() && r.claim.since < before).length,
    clock: async () => new Date(now()).toISOString(),
  };
}
