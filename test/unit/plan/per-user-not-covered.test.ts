import { describe, expect, test } from 'vitest';
import { parseManifestText } from '../../../src/manifest/load.js';
import { perUserNotCovered } from '../../../src/plan/per-user-not-covered.js';
import type { FleetCount } from '../../../src/state/fleet.js';

const text = 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail]\n---\nname: bot\nuser_id: ci-bot\n';
const documents = parseManifestText(text, '/w/m/a.yaml', {}).documents;
const fleet = (sessions: number, unknown = 0) => new Map<string, FleetCount>([['agent', { name: 'agent', sessions, byVersion: new Map([[1, sessions]]), unknown }]]);

describe('perUserNotCovered: diff and destroy say which per-user manifests they leave alone', () => {
  test('a per-user manifest with sessions: one warning at its name, with the count and what to run', () => {
    expect(perUserNotCovered(documents, { fleet: fleet(3) }, 'diff').map((d) => [d.code, d.severity, d.message, d.range?.start, d.hint])).toStrictEqual([
      [
        'state/per-user-not-covered',
        'warning',
        "agent is per-user: diff does not read its end users' sessions (3 recorded)",
        { line: 1, col: 1 },
        '`sessionctl state list --name agent` counts and lists them; `sessionctl state rm agent --user-id USER` forgets one',
      ],
    ]);
    expect(perUserNotCovered(documents, { fleet: fleet(0, 1) }, 'destroy').map((d) => d.message)).toStrictEqual(["agent is per-user: destroy does not delete its end users' sessions (0 recorded)"]);
  });

  test('none before the first session, and none for a manifest of one user', () => {
    expect(perUserNotCovered(documents, { fleet: fleet(0) }, 'diff')).toStrictEqual([]);
    expect(perUserNotCovered(documents, {}, 'destroy')).toStrictEqual([]);
  });
});
