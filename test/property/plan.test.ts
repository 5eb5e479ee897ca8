import { posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInCatalog, type Catalog } from '../../src/catalog/catalog.js';
import { createClient, type SessionClient } from '../../src/client/client.js';
import { sameEffect } from '../../src/config/equivalent.js';
import { bodyHash, canonicalJson, requestBody } from '../../src/config/request.js';
import { isPlainObject } from '../../src/util/plain-object.js';
import type { ManifestData } from '../../src/config/types.js';
import { checkConfigRules } from '../../src/emulator/config-rules.js';
import { configView, metaToolsFor, storedConfig } from '../../src/emulator/effective.js';
import { patchedConfig } from '../../src/emulator/routes/update.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { hasGlobMagic, splitGlob } from '../../src/manifest/glob.js';
import { fieldChanges } from '../../src/plan/field-changes.js';
import { patchBody } from '../../src/plan/patch-body.js';
import { buildPlan } from '../../src/plan/plan.js';
import { prunable } from '../../src/plan/prune.js';
import type { StateEntry } from '../../src/state/entry.js';
import type { Json } from '../../src/wire/json.js';
import type { CreateSessionRequest, UpdateSessionRequest } from '../../src/wire/request.js';
import { seedAccounts } from '../conformance/seed-accounts.js';
import { docs } from '../unit/validate/helpers.js';
import { fc, runs } from './fast-check.js';

/*
 * The planner's properties, on generated request bodies drawn from the fields a manifest declares
 * and slugs the catalogue knows:
 * - the PATCH body of an update, applied to the recorded body with PATCH's semantics (only the
 *   supplied keys change, null removes, maps and filters replace whole, other objects merge member
 *   by member), asks for the same session as the declared body; and the emulator's own PATCH
 *   (its pure logic, and over HTTP) turns a session created from the recorded body into one
 *   created from the declared body;
 * - planning twice gives the same plan, and planning after the plan was applied gives no-ops;
 * - fieldChanges(a, b) is empty exactly when a and b are equal, lists of scalars as sets;
 * - prune never deletes an entry whose file is outside the given roots.
 */

type Body = { [key: string]: Json };

const TAGS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const TOOLKITS = ['github', 'gmail', 'slack'];
const ACCOUNTS: Record<string, [string, string]> = Object.fromEntries(TOOLKITS.map((tk) => [tk, [`ca_${tk}_3m4n5o6p`, `ca_${tk}_9z8y7x6w`]]));
let catalog: Catalog;
let toolsOf: Record<string, string[]>;

beforeAll(async () => {
  catalog = await builtInCatalog();
  toolsOf = Object.fromEntries(TOOLKITS.map((tk) => [tk, catalog.toolsOf(tk).slice(0, 3).map((t) => t.slug)]));
});

const subset = (of: () => readonly string[], min = 0): fc.Arbitrary<string[]> => fc.constant(null).chain(() => fc.subarray([...of()], { minLength: min }));
const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 2 });
const tagFilter = fc.oneof(subset(() => TAGS, 1), fc.record({ enable: subset(() => TAGS, 1), disable: subset(() => TAGS, 1) }, { requiredKeys: [] }).filter((o) => Object.keys(o).length > 0));
const toolkitMap = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<Record<string, T>> => fc.dictionary(fc.constantFrom(...TOOLKITS), value, { maxKeys: 3 });

/** A request body as requestBody makes it from a manifest: only the keys a manifest declares. */
const body: fc.Arbitrary<Body> = fc
  .record(
    {
      toolkits: optional(fc.oneof(fc.record({ enable: subset(() => TOOLKITS) }), fc.record({ disable: subset(() => TOOLKITS) }))),
      tools: optional(
        fc.constantFrom(...TOOLKITS).chain((tk) =>
          fc.oneof(fc.record({ enable: subset(() => toolsOf[tk]!, 1) }), fc.record({ disable: subset(() => toolsOf[tk]!, 1) }), fc.record({ tags: tagFilter })).map((f) => ({ [tk]: f })),
        ),
      ),
      tags: optional(tagFilter),
      auth_configs: optional(toolkitMap(fc.constantFrom('ac_one', 'ac_two'))),
      // An account is of one toolkit (the emulator checks pins), so each toolkit has its own ids.
      connected_accounts: optional(
        fc
          .subarray(TOOLKITS)
          .chain((tks) => fc.tuple(...tks.map((tk) => fc.constantFrom(...ACCOUNTS[tk]!))).map((ids) => Object.fromEntries(tks.map((tk, n) => [tk, ids[n]!])))),
      ),
      manage_connections: optional(
        fc.record({ enable: fc.boolean(), callback_url: fc.constantFrom('https://a.example/cb', 'https://b.example/cb'), enable_wait_for_connections: fc.boolean(), enable_connection_removal: fc.boolean() }, { requiredKeys: [] }),
      ),
      workbench: optional(fc.record({ enable: fc.boolean(), enable_proxy_execution: fc.boolean(), auto_offload_threshold: fc.constantFrom(1000, 20000) }, { requiredKeys: [] })),
      multi_account: optional(fc.record({ enable: fc.boolean(), max_accounts_per_toolkit: fc.integer({ min: 2, max: 10 }), require_explicit_selection: fc.boolean() }, { requiredKeys: [] })),
      preload: optional(fc.record({ tools: subset(() => Object.values(toolsOf).flat()) })),
    },
    { requiredKeys: [] },
  )
  .map((b) => {
    const out: Body = { user_id: 'u' };
    for (const [k, v] of Object.entries(b)) if (v !== undefined) out[k] = v as Json;
    return out;
  });

/**
 * PATCH as api facts §7 states it. The facts do not say how `multi_account` is patched; the
 * contract makes its members non-nullable, and the emulator replaces the block whole.
 */
function applyPatch(before: Body, patch: Body): Body {
  const out: Body = structuredClone(before);
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'expected_config_version') continue;
    if (value === null) delete out[key];
    else if (['toolkits', 'tools', 'tags', 'auth_configs', 'connected_accounts', 'multi_account'].includes(key) || !isPlainObject(value)) out[key] = value;
    else {
      const merged: Body = isPlainObject(out[key]) ? { ...(out[key] as Body) } : {};
      for (const [m, v] of Object.entries(value)) {
        if (v === null) delete merged[m];
        else merged[m] = v;
      }
      out[key] = merged;
    }
  }
  return out;
}

/** What the emulator holds for a body (its v3 answer's config and tools), setwise. */
function served(config: ReturnType<typeof storedConfig>): string {
  const view = configView(config, '3');
  return canonicalJson(setwise({ config: view, tools: metaToolsFor(view) }));
}

function setwise(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(setwise);
    return items.every((i) => i === null || typeof i !== 'object') ? [...new Set(items.map((i) => canonicalJson(i)))].sort() : items;
  }
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, setwise(x)]));
  return v;
}

const regressions: Array<[Body, Body]> = [
    // A block member no longer declared: sent as null inside the block, not as the whole block.
    [{ user_id: 'u', manage_connections: { enable: true, callback_url: 'https://a.example/cb' } }, { user_id: 'u', manage_connections: { enable: true } }],
  // Found: a multi_account member no longer declared was sent as null, which the contract refuses (400) (seed 1669580666).
  [{ user_id: 'u', multi_account: { enable: false } }, { user_id: 'u', multi_account: {} }],
  [{ user_id: 'u', multi_account: { max_accounts_per_toolkit: 2 } }, { user_id: 'u', multi_account: {} }],
  // Found: a workbench member no longer declared was sent as null, which the contract refuses (400) (seed -367636376).
  [{ user_id: 'u', workbench: { enable: false } }, { user_id: 'u', workbench: {} }],
];

describe('the PATCH of an update', () => {

  it('applied to the recorded body with PATCH semantics, asks for the declared session', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(body, body, (before, after) => {
        const patch = patchBody(before, after) as unknown as Body;
        expect(Object.keys(patch).every((k) => k !== 'user_id')).toBe(true);
        expect(sameEffect(applyPatch(before, patch), after)).toBe(true);
      }),
      runs(regressions),
    );
  });

  it('the emulator’s PATCH logic turns the session of the recorded body into that of the declared one', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(body, body, (before, after) => {
        const patch = patchBody(before, after);
        const patched = patchedConfig(storedConfig(before as unknown as CreateSessionRequest), patch);
        expect(served(patched)).toBe(served(storedConfig(after as unknown as CreateSessionRequest)));
      }),
      runs(regressions),
    );
  });

  it('sends nothing when nothing changed, and only keys that changed', () => {
    fc.assert(
      fc.property(body, body, (before, after) => {
        expect(patchBody(before, structuredClone(before))).toStrictEqual({});
        const patch = patchBody(before, after) as unknown as Body;
        for (const key of Object.keys(patch)) expect(canonicalJson(before[key] ?? null)).not.toBe(canonicalJson(after[key] ?? null));
      }),
      runs(),
    );
  });
});

function keepsRules(b: Body): boolean {
  try {
    checkConfigRules(storedConfig(b as unknown as CreateSessionRequest), catalog);
    return true;
  } catch {
    return false;
  }
}

const offload = (b: Body): Json | undefined => (isPlainObject(b['workbench']) ? (b['workbench'] as Body)['auto_offload_threshold'] : undefined);

describe('the PATCH of an update, over HTTP against the emulator', () => {
  let emulator: RunningEmulator;
  let client: SessionClient;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    client = createClient({ baseUrl: emulator.url, apiKey: 'plan-property-key-0001', retries: { maxRetries: 0 } });
    await seedAccounts(emulator.url, 'plan-property-key-0001', Object.entries(ACCOUNTS).flatMap(([toolkit, ids]) => ids.map((id) => ({ id, user_id: 'u', toolkit }))));
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  it('is accepted, and the session then answers as one created from the declared body', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(body, body, async (before, after) => {
        // Known limit (docs/testing.md): workbench.auto_offload_threshold has no documented default,
        // and the contract refuses null for it, so no PATCH can take it away again.
        fc.pre(!(offload(before) !== undefined && offload(after) === undefined));
        // Bodies the service refuses as a whole (a preload the filters block, preload with
        // multi-account) are the conformance tests' subject, not this property's.
        fc.pre(keepsRules(before) && keepsRules(after));
        const session = await client.createSession(before as unknown as CreateSessionRequest);
        const patched = await client.updateSession(session.session_id, { ...(patchBody(before, after) as UpdateSessionRequest), expected_config_version: 1 });
        const fresh = await client.createSession(after as unknown as CreateSessionRequest);
        expect(canonicalJson(setwise({ config: patched.config, tools: patched.tool_router_tools }))).toBe(canonicalJson(setwise({ config: fresh.config, tools: fresh.tool_router_tools })));
        await client.deleteSession(session.session_id);
        await client.deleteSession(fresh.session_id);
      }),
      runs(regressions),
    );
  });
});

describe('planning', () => {
  const manifest = fc.record({ name: fc.constantFrom('a', 'b', 'c'), user: fc.constantFrom('alice', 'bob'), body }).map(({ name, user, body: b }) => ({ name, user, body: b }));
  const yamlOf = (m: { name: string; user: string; body: Body }): string => JSON.stringify({ name: m.name, ...m.body, user_id: m.user });

  /** A state: for some manifests an entry from another body, another user, without a body, or a left-over. */
  const world = fc.record({
    manifests: fc.uniqueArray(manifest, { selector: (m) => m.name, minLength: 1, maxLength: 3 }),
    recorded: fc.array(fc.record({ name: fc.constantFrom('a', 'b', 'c', 'gone'), user: fc.constantFrom('alice', 'bob'), body: fc.option(body, { nil: null }), superseded: fc.boolean(), file: fc.constantFrom('m/x.yaml', 'elsewhere/y.yaml') }), { maxLength: 4 }),
  });

  function stateOf(recorded: Array<{ name: string; user: string; body: Body | null; superseded: boolean; file: string }>) {
    const entries = new Map<string, StateEntry>();
    for (const r of recorded) {
      const b = r.body === null ? null : { ...r.body, user_id: r.user };
      entries.set(`${r.name}\0${r.user}`, {
        name: r.name,
        user_id: r.user,
        session_id: `trs_${r.name}_${r.user}`,
        mcp_url: '',
        tool_router_tools: [],
        config_version: 1,
        body_hash: b === null ? 'unknown' : bodyHash(b),
        body: b,
        applied_at: 't',
        file: r.file,
        ...(r.superseded ? { superseded: ['trs_old'] } : {}),
      });
    }
    return view([...entries.values()]);
  }

  const view = (entries: StateEntry[]) => ({ hashAtLoad: 'h', get: (n: string, u: string) => entries.find((e) => e.name === n && e.user_id === u), list: () => entries });

  it('gives the same plan twice', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(world, ({ manifests, recorded }) => {
        const documents = docs(manifests.map(yamlOf).join('\n---\n'), '/w/m/x.yaml');
        const state = stateOf(recorded);
        const options = { prune: { roots: ['/w/m'], cwd: '/w' } };
        expect(buildPlan(documents, state, options)).toStrictEqual(buildPlan(documents, state, options));
      }),
      runs(),
    );
  });

  it('after its changes are recorded, plans no change at all', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(world, ({ manifests, recorded }) => {
        const documents = docs(manifests.map(yamlOf).join('\n---\n'), '/w/m/x.yaml');
        const state = stateOf(recorded);
        const plan = buildPlan(documents, state, { prune: { roots: ['/w/m'], cwd: '/w' } });
        // What apply records when every step succeeds: the declared bodies, no left-overs, the deletions and replaced entries gone.
        const gone = new Set([...plan.deletions.map((d) => d.entry), ...plan.items.flatMap((i) => (i.replaces !== undefined && i.replaces.user_id !== i.user_id ? [i.replaces] : []))]);
        const kept = state.list().filter((e) => !gone.has(e) && !plan.items.some((i) => i.name === e.name && i.user_id === e.user_id));
        const applied: StateEntry[] = plan.items.map((i) => ({ name: i.name, user_id: i.user_id, session_id: `trs_new_${i.name}`, mcp_url: '', tool_router_tools: [], config_version: 2, body_hash: i.body_hash, body: i.body as unknown as Body, applied_at: 't', file: 'm/x.yaml' }));
        const again = buildPlan(documents, view([...kept.map(({ superseded: _s, ...e }) => e), ...applied]), { prune: { roots: ['/w/m'], cwd: '/w' } });
        expect(again.items.map((i) => [i.name, i.action, i.cleanup])).toStrictEqual(plan.items.map((i) => [i.name, 'no-op', []]));
        expect(again.deletions).toStrictEqual([]);
      }),
      runs(),
    );
  });

  it('plans an update exactly when the bodies ask for different sessions, and its changes are the field changes', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(body, body, (before, after) => {
        const documents = docs(JSON.stringify({ name: 'a', ...after }), '/w/m/x.yaml');
        const declared = requestBody(documents[0]!.data as ManifestData) as unknown as Body;
        const entry: StateEntry = { name: 'a', user_id: 'u', session_id: 'trs_a', mcp_url: '', tool_router_tools: [], config_version: 1, body_hash: bodyHash(before), body: before, applied_at: 't' };
        const [item] = buildPlan(documents, view([entry])).items;
        expect(item!.action).toBe(sameEffect(before, declared) ? 'no-op' : 'update');
        if (item!.action === 'update') expect(item!.changes.map(({ range: _r, ...c }) => c)).toStrictEqual(fieldChanges(before, declared));
      }),
      runs(),
    );
  });
});

describe('fieldChanges', () => {
  /** Equal as data, lists of scalars as sets. */
  function normal(v: Json | undefined): unknown {
    if (Array.isArray(v)) return v.every((m) => m === null || typeof m !== 'object') ? [...new Set(v.map((m) => canonicalJson(m)))].sort() : canonicalJson(v);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normal(x as Json)]));
    return v;
  }
  const same = (a: Json, b: Json): boolean => canonicalJson(normal(a)) === canonicalJson(normal(b));

  const scalar = fc.constantFrom<Json>('a', 'b', 1, '1', true, null);
  const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
    v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(scalar, { maxLength: 4 }), fc.array(tie('v'), { maxLength: 2 }), fc.dictionary(fc.constantFrom('x', 'y', 'z'), tie('v'), { maxKeys: 3 })),
  })).v;
  /** A value and a variant of it: lists of scalars shuffled and with repeats, sometimes one thing changed. */
  const variant = (v: Json): fc.Arbitrary<Json> => {
    if (Array.isArray(v) && v.every((m) => m === null || typeof m !== 'object')) return fc.shuffledSubarray([...v, ...v], { minLength: v.length === 0 ? 0 : 1 }).map((s) => [...new Set([...s, ...v])] as Json);
    if (isPlainObject(v)) return fc.tuple(...Object.entries(v).map(([k, x]) => variant(x as Json).map((y) => [k, y] as const))).map((pairs) => Object.fromEntries(pairs) as Json);
    return fc.constant(v);
  };
  const pair = json.chain((a) => fc.oneof(variant(a), json, variant(a).chain((b) => fc.oneof(json.map((c) => (isPlainObject(b) ? { ...b, w: c } : c)), fc.constant(b)))).map((b) => [a, b] as const));

  it('is empty exactly when the two are equal, lists of scalars as sets', () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(fieldChanges(a, b).length === 0).toBe(same(a, b));
      }),
      runs<[readonly [Json, Json]]>([[[['a', 'a'], ['a']]], [[{ x: [{ y: ['b', 'a'] }] }, { x: [{ y: ['a', 'b'] }] }]]]),
    );
  });

  it('has no change twice for one field, and none when compared with itself', () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const fields = fieldChanges(a, b).map((c) => c.field);
        expect(new Set(fields).size).toBe(fields.length);
        expect(fieldChanges(a, a)).toStrictEqual([]);
      }),
      runs(),
    );
  });
});

describe('prune', () => {
  const segment = fc.constantFrom('m', 'n', 'sub', 'a.yaml', 'b.yml', 'x[1].yaml', 'x1.yaml', 'x{1,2}.yaml', 'x2.yaml');
  const glob = fc.constantFrom('*', '**', '*.yaml', '?', '[ab].yaml', '{a,b}.yaml', '.*');
  const rel = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
  const root = fc.oneof(
    rel,
    fc.tuple(fc.array(segment, { maxLength: 2 }), glob, fc.array(fc.oneof(segment, glob), { maxLength: 2 })).map(([a, g, b]) => [...a, g, ...b].join('/')),
    fc.constantFrom('.', '/', '/w', '..', '../w/m'),
  );
  const entryFile = fc.oneof(rel, rel.map((r) => `../${r}`), rel.map((r) => `/elsewhere/${r}`));
  const kept = docs('name: kept\nuser_id: u\n', '/w/m/kept.yaml');

  it('never deletes an entry whose file is outside the roots (a root that exists is that path, even with glob characters)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(root, fc.boolean()), { maxLength: 3 }), fc.uniqueArray(entryFile, { maxLength: 6 }), (rootsAndExisting, files) => {
        const roots = rootsAndExisting.map(([r]) => r);
        const existing = new Set(rootsAndExisting.filter(([, e]) => e).map(([r]) => posix.resolve('/w', r)));
        const entries: StateEntry[] = files.map((file, i) => ({ name: `e${i}`, user_id: 'u', session_id: `trs_${i}`, mcp_url: '', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: 't', file }));
        const literal = (p: string): boolean => existing.has(p);
        const absRoots = roots.map((r) => posix.resolve('/w', r));
        for (const e of prunable(entries, kept, new Set(), { roots, cwd: '/w', literal })) {
          const file = posix.resolve('/w', e.file!);
          const inside = absRoots.some((r) => {
            const base = hasGlobMagic(r) && !literal(r) ? splitGlob(r).base : r;
            return file === base || file.startsWith(base.endsWith('/') ? base : `${base}/`);
          });
          expect(inside, `${e.file} pruned for roots ${JSON.stringify(roots)}`).toBe(true);
        }
      }),
      runs<[Array<[string, boolean]>, string[]]>([[[['m/x[1].yaml', true]], ['m/x1.yaml']]]),
    );
  });

  it('deletes every entry named by a root that is no glob (the file, or below the folder)', () => {
    fc.assert(
      fc.property(fc.array(rel, { minLength: 1, maxLength: 2 }), fc.uniqueArray(rel, { maxLength: 6 }), (roots, files) => {
        const entries: StateEntry[] = files.map((file, i) => ({ name: `e${i}`, user_id: 'u', session_id: `trs_${i}`, mcp_url: '', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: 't', file }));
        const pruned = new Set(prunable(entries, kept, new Set(), { roots, cwd: '/w', literal: () => true }).map((e) => e.file));
        for (const f of files) expect(pruned.has(f)).toBe(roots.some((r) => f === r || f.startsWith(`${r}/`)));
      }),
      runs(),
    );
  });
});
