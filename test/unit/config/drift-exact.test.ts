import { describe, expect, it } from 'vitest';
import { computeDrift, driftDiagnostics, SERVICE_CHOSEN, type DriftItem } from '../../../src/config/drift.js';
import { expectedConfig } from '../../../src/config/expected.js';
import { requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { effectiveConfig, metaToolsFor } from '../../../src/emulator/effective.js';
import type { CreateSessionRequest } from '../../../src/wire/request.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { doc } from '../validate/helpers.js';

/*
 * Drift held to its whole output: every item with its kind, paths, expected and actual values and
 * member (toStrictEqual, so a stray `expected: undefined` shows), and every diagnostic with its
 * exact message and range in a real parsed manifest. The served side is the emulator's effective
 * config for the same manifest (written independently from the same facts), then edited the way
 * a service would drift.
 */

type Served = { config: Record<string, unknown>; tool_router_tools?: unknown };
type Obj = Record<string, unknown>;

function served(manifest: ManifestData): Served {
  const config = effectiveConfig(requestBody(manifest) as unknown as CreateSessionRequest);
  return { config: JSON.parse(JSON.stringify(config)) as Obj, tool_router_tools: metaToolsFor(config) };
}

interface Case {
  doc: ManifestDocument;
  items: DriftItem[];
  /** Everything but `defaulted`: what the tables below assert. */
  drifted: DriftItem[];
}

function drift(yaml: string, edit: (s: Served) => void = () => undefined): Case {
  const d = doc(yaml);
  const manifest = d.data as ManifestData;
  const s = served(manifest);
  edit(s);
  const items = computeDrift(expectedConfig(manifest), s);
  return { doc: d, items, drifted: items.filter((i) => i.kind !== 'defaulted') };
}

const obj = (s: Served, key: string): Obj => s.config[key] as Obj;
const tools = (s: Served): string[] => s.tool_router_tools as string[];
const DEFAULT_META = ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL'];

describe('computeDrift: the items, exactly', () => {
  it('an unchanged session: only defaulted items, each with both values and its anchor', () => {
    const c = drift('user_id: u\nworkbench: { enable: false }\n');
    expect(c.items).toStrictEqual([
      { kind: 'defaulted', path: '/config/manage_connections/enabled', pointer: '', expected: true, actual: true },
      { kind: 'defaulted', path: '/config/manage_connections/enable_wait_for_connections', pointer: '', expected: false, actual: false },
      { kind: 'defaulted', path: '/config/manage_connections/enable_connection_removal', pointer: '', expected: true, actual: true },
      { kind: 'defaulted', path: '/config/workbench/proxy_execution_enabled', pointer: '/workbench', expected: true, actual: true },
      { kind: 'defaulted', path: '/config/workbench/tool_execution_enabled', pointer: '/workbench', expected: true, actual: true },
      { kind: 'defaulted', path: '/config/workbench/sandbox_size', pointer: '/workbench', expected: 'standard', actual: 'standard' },
      { kind: 'defaulted', path: '/config/preload/tools', pointer: '', expected: [], actual: [] },
    ]);
  });

  it('an undeclared key the service adds: added, with the value and no expected', () => {
    const c = drift('user_id: u\n', (s) => (s.config['extra'] = { a: 1 }));
    expect(c.drifted).toStrictEqual([{ kind: 'added', path: '/config/extra', pointer: '', actual: { a: 1 } }]);
  });

  it('an undeclared key inside a declared block is anchored at the block', () => {
    const c = drift('user_id: u\nworkbench:\n  enable: false\n', (s) => (obj(s, 'workbench')['new_flag'] = 'x'));
    expect(c.drifted).toStrictEqual([{ kind: 'added', path: '/config/workbench/new_flag', pointer: '/workbench', actual: 'x' }]);
  });

  it('undeclared empty values (null, [], {}) are no drift', () => {
    const c = drift('user_id: u\n', (s) => Object.assign(s.config, { a: null, b: [], c: {} }));
    expect(c.drifted).toStrictEqual([]);
  });

  it.each([...SERVICE_CHOSEN])('%s, chosen by the service when not declared, is no drift', (pointer) => {
    const c = drift('user_id: u\n', (s) => {
      const [block, key] = pointer.slice(1).split('/') as [string, string | undefined];
      if (key === undefined) s.config[block] = { chosen: true };
      else obj(s, block)[key] = 12345;
    });
    expect(c.drifted).toStrictEqual([]);
  });

  it('a declared empty list the service does not echo is no drift', () => {
    const c = drift('user_id: u\ntags: []\n', (s) => delete s.config['tags']);
    expect(c.drifted).toStrictEqual([]);
  });

  it('a declared value not echoed is dropped; a declared block not echoed drops each member', () => {
    const c = drift('user_id: u\nworkbench:\n  enable: false\n  sandbox_size: large\n', (s) => delete s.config['workbench']);
    expect(c.drifted).toStrictEqual([
      { kind: 'dropped', path: '/config/workbench/enable', pointer: '/workbench/enable', expected: false },
      { kind: 'dropped', path: '/config/workbench/sandbox_size', pointer: '/workbench/sandbox_size', expected: 'large' },
    ]);
  });

  it('a declared value answered null is dropped', () => {
    const c = drift('user_id: u\nauth_configs: { gmail: ac_1 }\n', (s) => (obj(s, 'auth_configs')['gmail'] = null));
    expect(c.drifted).toStrictEqual([{ kind: 'dropped', path: '/config/auth_configs/gmail', pointer: '/auth_configs/gmail', expected: 'ac_1' }]);
  });

  it('a scalar where a block is expected: one item for the block, not one per member', () => {
    const declared = drift('user_id: u\nworkbench: { enable: false }\n', (s) => (s.config['workbench'] = false));
    expect(declared.drifted).toStrictEqual([
      {
        kind: 'changed',
        path: '/config/workbench',
        pointer: '/workbench',
        expected: { enable: false, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' },
        actual: false,
      },
    ]);
    const undeclared = drift('user_id: u\n', (s) => (s.config['manage_connections'] = true));
    expect(undeclared.drifted).toStrictEqual([
      {
        kind: 'added',
        path: '/config/manage_connections',
        pointer: '',
        expected: { enabled: true, enable_wait_for_connections: false, enable_connection_removal: true },
        actual: true,
      },
    ]);
  });

  it('a declared scalar changed; a defaulted one that differs is added at its anchor', () => {
    const c = drift('user_id: u\nworkbench: { enable: false }\n', (s) => {
      obj(s, 'workbench')['enable'] = true;
      obj(s, 'workbench')['sandbox_size'] = 'large';
    });
    expect(c.drifted).toStrictEqual([
      { kind: 'changed', path: '/config/workbench/enable', pointer: '/workbench/enable', expected: false, actual: true },
      { kind: 'added', path: '/config/workbench/sandbox_size', pointer: '/workbench', expected: 'standard', actual: 'large' },
    ]);
  });

  it('lists: a missing declared member at its own line, an extra one at the list, order ignored', () => {
    const c = drift('user_id: u\ntoolkits:\n  enable: [gmail, slack, github]\n', (s) => (obj(s, 'toolkits')['enabled'] = ['github', 'notion', 'gmail']));
    const list = { expected: ['gmail', 'slack', 'github'], actual: ['github', 'notion', 'gmail'] };
    expect(c.drifted).toStrictEqual([
      { kind: 'changed', path: '/config/toolkits/enabled', pointer: '/toolkits/enable/1', ...list, member: 'slack' },
      { kind: 'changed', path: '/config/toolkits/enabled', pointer: '/toolkits/enable', ...list, member: 'notion' },
    ]);
  });

  it('a defaulted list that differs is added, whole', () => {
    const c = drift('user_id: u\n', (s) => (obj(s, 'preload')['tools'] = ['GMAIL_SEND_EMAIL']));
    expect(c.drifted).toStrictEqual([{ kind: 'added', path: '/config/preload/tools', pointer: '', expected: [], actual: ['GMAIL_SEND_EMAIL'] }]);
  });

  it('a declared list without member positions points at the list', () => {
    // `user_id` is a scalar in the schema; data that failed it still gets a drift without a crash.
    const c = drift('user_id: [a, b]\n', (s) => (s.config['user_id'] = ['a']));
    expect(c.drifted).toStrictEqual([{ kind: 'changed', path: '/config/user_id', pointer: '/user_id', expected: ['a', 'b'], actual: ['a'], member: 'b' }]);
  });

  it('a one-element list equals its scalar; two elements or an object do not', () => {
    expect(drift('user_id: u\n', (s) => (s.config['user_id'] = ['u'])).drifted).toStrictEqual([]);
    expect(drift('user_id: u\n', (s) => (s.config['user_id'] = ['u', 'v'])).drifted).toStrictEqual([
      { kind: 'changed', path: '/config/user_id', pointer: '/user_id', expected: 'u', actual: ['u', 'v'] },
    ]);
    expect(drift('user_id: u\n', (s) => (s.config['user_id'] = ['v'])).drifted).toStrictEqual([
      { kind: 'changed', path: '/config/user_id', pointer: '/user_id', expected: 'u', actual: ['v'] },
    ]);
    expect(drift('user_id: u\n', (s) => (s.config['user_id'] = { 0: 'u', length: 1 })).drifted).toStrictEqual([
      { kind: 'changed', path: '/config/user_id', pointer: '/user_id', expected: 'u', actual: { 0: 'u', length: 1 } },
    ]);
  });
});

describe('computeDrift: what is no item at all', () => {
  it('a declared list held as declared: not even a defaulted item', () => {
    const c = drift('user_id: u\ntoolkits: [gmail, slack]\n', (s) => (obj(s, 'toolkits')['enabled'] = ['slack', 'gmail']));
    expect(c.items.filter((i) => i.path.startsWith('/config/toolkits'))).toStrictEqual([]);
  });

  it('a key neither declared nor answered (a manifest that failed the schema)', () => {
    const manifest = {} as ManifestData;
    const s = served({ user_id: 'u' });
    delete s.config['user_id'];
    expect(computeDrift(expectedConfig(manifest), s).filter((i) => i.kind !== 'defaulted')).toStrictEqual([]);
  });
});

describe('computeDrift: meta tools', () => {
  it('no tool_router_tools in the answer: dropped, with the expected set', () => {
    const c = drift('user_id: u\n', (s) => delete s.tool_router_tools);
    expect(c.drifted).toStrictEqual([{ kind: 'dropped', path: '/tool_router_tools', pointer: '', expected: DEFAULT_META }]);
  });

  it('a missing default tool is added; a missing tool a declared key decides is changed at that key', () => {
    const c = drift('user_id: u\nmanage_connections: { enable: true }\n', (s) => {
      s.tool_router_tools = tools(s).filter((t) => t !== 'COMPOSIO_MANAGE_CONNECTIONS' && t !== 'COMPOSIO_GET_TOOL_SCHEMAS');
    });
    const sets = { expected: DEFAULT_META, actual: DEFAULT_META.filter((t) => t !== 'COMPOSIO_MANAGE_CONNECTIONS' && t !== 'COMPOSIO_GET_TOOL_SCHEMAS') };
    expect(c.drifted).toStrictEqual([
      { kind: 'added', path: '/tool_router_tools', pointer: '', ...sets, member: 'COMPOSIO_GET_TOOL_SCHEMAS' },
      { kind: 'changed', path: '/tool_router_tools', pointer: '/manage_connections/enable', ...sets, member: 'COMPOSIO_MANAGE_CONNECTIONS' },
    ]);
  });

  it('an extra tool a declared key excludes is changed; an unknown extra tool is added; non-strings are ignored', () => {
    const c = drift('user_id: u\nworkbench: { enable: false }\n', (s) => {
      s.tool_router_tools = [...tools(s), 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_SOMETHING_NEW', 7, null];
    });
    const expected = DEFAULT_META.filter((t) => !t.startsWith('COMPOSIO_REMOTE_'));
    const sets = { expected, actual: [...expected, 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_SOMETHING_NEW'] };
    expect(c.drifted).toStrictEqual([
      { kind: 'changed', path: '/tool_router_tools', pointer: '/workbench/enable', ...sets, member: 'COMPOSIO_REMOTE_WORKBENCH' },
      { kind: 'added', path: '/tool_router_tools', pointer: '', ...sets, member: 'COMPOSIO_SOMETHING_NEW' },
    ]);
  });

  it('a preloaded tool missing is changed at its member of preload.tools', () => {
    const c = drift('user_id: u\npreload:\n  tools: [GMAIL_SEND_EMAIL, SLACK_SEND_MESSAGE]\n', (s) => {
      s.tool_router_tools = tools(s).filter((t) => t !== 'SLACK_SEND_MESSAGE');
    });
    const expected = [...DEFAULT_META, 'GMAIL_SEND_EMAIL', 'SLACK_SEND_MESSAGE'];
    expect(c.drifted).toStrictEqual([
      { kind: 'changed', path: '/tool_router_tools', pointer: '/preload/tools/1', expected, actual: expected.filter((t) => t !== 'SLACK_SEND_MESSAGE'), member: 'SLACK_SEND_MESSAGE' },
    ]);
  });
});

describe('driftDiagnostics: codes, exact messages, ranges in the manifest', () => {
  const where = (c: Case, name = 'm') => driftDiagnostics(c.items, c.doc, name).map((d) => [d.code, d.severity, d.message, d.pointer, d.range]);
  const range = (line: number, col: number, endLine: number, endCol: number) => ({ start: { line, col }, end: { line: endLine, col: endCol } });

  it('changed, dropped and added values, members present and lacking', () => {
    const c = drift('user_id: u\ntoolkits:\n  enable: [gmail, slack]\nworkbench:\n  enable: false\nauth_configs: { gmail: ac_1 }\n', (s) => {
      obj(s, 'toolkits')['enabled'] = ['gmail', 'notion'];
      obj(s, 'workbench')['enable'] = true;
      obj(s, 'workbench')['sandbox_size'] = 'large';
      delete s.config['auth_configs'];
      s.config['extra'] = 3;
    });
    expect(where(c)).toStrictEqual([
      ['drift/changed', 'error', 'm: config.toolkits.enabled lacks "slack", which is declared', '/toolkits/enable/1', range(3, 19, 3, 24)],
      ['drift/changed', 'error', 'm: config.toolkits.enabled holds "notion", which is not declared', '/toolkits/enable', range(3, 3, 3, 9)],
      ['drift/dropped', 'error', 'm: config.auth_configs.gmail is declared "ac_1" but the service does not echo it', '/auth_configs/gmail', range(6, 17, 6, 22)],
      ['drift/changed', 'error', 'm: config.workbench.enable is true at the service, declared false', '/workbench/enable', range(5, 3, 5, 9)],
      ['drift/added', 'warning', 'm: config.workbench.sandbox_size is "large" at the service but not declared (documented default "standard")', '/workbench', range(4, 1, 4, 10)],
      ['drift/added', 'warning', 'm: config.extra is 3 at the service but not declared', '', range(1, 1, 1, 2)],
    ]);
  });

  it('meta tools: exposes, does not expose, the default note, and a missing list', () => {
    const c = drift('user_id: u\nworkbench: { enable: false }\n', (s) => {
      s.tool_router_tools = [...tools(s).filter((t) => t !== 'COMPOSIO_SEARCH_TOOLS'), 'COMPOSIO_REMOTE_WORKBENCH'];
    });
    expect(where(c, 'bot')).toStrictEqual([
      ['drift/added', 'warning', 'bot: the session does not expose meta tool COMPOSIO_SEARCH_TOOLS (not declared; documented default differs)', '', range(1, 1, 1, 2)],
      ['drift/changed', 'error', 'bot: the session exposes meta tool COMPOSIO_REMOTE_WORKBENCH', '/workbench/enable', range(2, 14, 2, 20)],
    ]);
    const none = drift('user_id: u\n', (s) => delete s.tool_router_tools);
    expect(where(none)).toStrictEqual([['drift/dropped', 'error', `m: tool_router_tools is declared ${JSON.stringify(DEFAULT_META)} but the service does not echo it`, '', range(1, 1, 1, 2)]]);
  });

  it('nothing declared above: at `name:` when the document declares it, else the first line', () => {
    const named = drift('# header\nname: bot\nuser_id: u\n', (s) => (s.config['extra'] = 1));
    expect(where(named, 'bot')).toStrictEqual([['drift/added', 'warning', 'bot: config.extra is 1 at the service but not declared', '', range(2, 1, 2, 5)]]);
    const unnamed = drift('# header\nuser_id: u\n', (s) => (s.config['extra'] = 1));
    expect(where(unnamed)).toStrictEqual([['drift/added', 'warning', 'm: config.extra is 1 at the service but not declared', '', range(2, 1, 2, 2)]]);
  });

  it('a named document keeps a finding with a pointer at its own key', () => {
    const c = drift('name: bot\nuser_id: u\n', (s) => (s.config['user_id'] = 'v'));
    expect(where(c, 'bot')).toStrictEqual([['drift/changed', 'error', 'bot: config.user_id is "v" at the service, declared "u"', '/user_id', range(2, 1, 2, 8)]]);
  });

  it('a list member is located at the value (index >= 10 too); a key under a list item at the key', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => `t${i}`);
    const c = drift(`user_id: u\ntoolkits:\n  enable:\n${twelve.map((t) => `    - ${t}\n`).join('')}`, (s) => (obj(s, 'toolkits')['enabled'] = twelve.slice(0, 11)));
    expect(where(c)).toStrictEqual([['drift/changed', 'error', 'm: config.toolkits.enabled lacks "t11", which is declared', '/toolkits/enable/11', range(15, 7, 15, 10)]]);
    const items: DriftItem[] = [{ kind: 'changed', path: '/config/x', pointer: '/x/0/slug', expected: 'a', actual: 'b' }];
    const d = doc('user_id: u\nx:\n  - slug: a\n');
    expect(driftDiagnostics(items, d, 'm').map((i) => i.range)).toStrictEqual([range(3, 5, 3, 9)]);
  });

  it('a numeric map key of two digits is located like a list index, at its value', () => {
    const c = drift('user_id: u\nauth_configs:\n  "12": ac_1\n', (s) => delete obj(s, 'auth_configs')['12']);
    expect(where(c)).toStrictEqual([['drift/dropped', 'error', 'm: config.auth_configs.12 is declared "ac_1" but the service does not echo it', '/auth_configs/12', range(3, 9, 3, 13)]]);
  });

  it('an item built without a value shows it as nothing', () => {
    const d = doc('user_id: u\n');
    const items: DriftItem[] = [{ kind: 'changed', path: '/config/user_id', pointer: '/user_id', expected: 'u' }];
    expect(driftDiagnostics(items, d, 'm').map((i) => i.message)).toStrictEqual(['m: config.user_id is nothing at the service, declared "u"']);
  });

  it('defaulted items make no diagnostic', () => {
    const c = drift('user_id: u\n');
    expect(c.items.length).toBeGreaterThan(0);
    expect(driftDiagnostics(c.items, c.doc, 'm')).toStrictEqual([]);
  });

  it('every diagnostic names the manifest file and keeps the item pointer', () => {
    const c = drift('name: bot\nuser_id: u\n', (s) => (s.config['extra'] = 1));
    expect(driftDiagnostics(c.items, c.doc, 'bot').map((d) => [d.file, d.pointer])).toStrictEqual([['/work/m.yaml', '']]);
  });
});
