import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countFleetFile, fleetFilePage } from '../../../src/state/file-fleet.js';
import { fleetRowProblem } from '../../../src/state/fleet.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Issue 29, item 6: a fleet row's session id and MCP URL are checked before an application gets them. */
describe('fleet rows', () => {
  const row = (over: Record<string, unknown>) => ({ name: 'agent', user_id: 'u1', session_id: 'trs_AbC123', mcp_url: 'http://127.0.0.1:1/mcp', tool_router_tools: [], config_version: 1, version: 1, body_hash: 'h', created_at: '2026-03-01T10:00:00.000Z', ...over });

  it.each([
    ['an id of dot segments', { session_id: '../../x' }, /is not a session id/],
    ['an id with ESC', { session_id: 'trs_a\u001b[2J' }, /is not a session id/],
    ['an id with a newline', { session_id: 'trs_a\nb' }, /is not a session id/],
    ['an id with a slash', { session_id: 'trs_a/b' }, /is not a session id/],
    ['an MCP URL with BEL', { mcp_url: 'http://x/mcp\u0007' }, /holds a control character/],
    ['an MCP URL with a newline', { mcp_url: 'http://x/mcp\nx=1' }, /holds a control character/],
  ])('%s: the fleet file is refused by every reader, naming the row', async (_name, over, why) => {
    const dir = tempDir('fleet-ids');
    const state = join(dir, 'state.json');
    writeFileSync(join(dir, 'state.fleet.json'), JSON.stringify({ version: 1, sessions: [row(over)] }));
    await expect(countFleetFile(state)).rejects.toThrow(/the fleet file is not valid \(sessions\[0\]: /);
    await expect(fleetFilePage(state, { limit: 10 })).rejects.toThrow(why);
    expect(fleetRowProblem(row(over) as never)).toMatch(why);
  });

  it('a claim without a session yet, and a row of the service\'s form, are fine', async () => {
    expect(fleetRowProblem({ session_id: '', mcp_url: '' })).toBeUndefined();
    expect(fleetRowProblem({ session_id: 'trs_AbC-1_2', mcp_url: 'https://x/mcp' })).toBeUndefined();
    const dir = tempDir('fleet-ids-ok');
    writeFileSync(join(dir, 'state.fleet.json'), JSON.stringify({ version: 1, sessions: [row({})] }));
    expect((await countFleetFile(join(dir, 'state.json'))).get('agent')?.sessions).toBe(1);
  });
});
