import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipBecause } from '../../helpers/skip.js';

type S = Record<string, unknown>;
const root = fileURLToPath(new URL('../../..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}/schemas/session-manifest.schema.json`, 'utf8')) as S;
const contractText = readFileSync(`${root}/contract/tool-router-v3.openapi.json`, 'utf8');
const contract = JSON.parse(contractText) as S;
const createRequest = (((((contract['paths'] as S)['/api/v3/tool_router/session'] as S)['post'] as S)['requestBody'] as S)['content'] as S)['application/json'] as S;
const contractSchema = createRequest['schema'] as S;
/** The digest of the vendored contract/tool-router-v3.openapi.json, as taken from shared/contract. */
const CONTRACT_SHA256 = '055d2f3f828bc14ef74b2d53827083193b1f45872e935ed37c5d62969e4eaf51';
/** Where a checkout finds the project's shared folder: beside the repository (also in CI). */
const sharedContract = join(root, '..', 'shared', 'contract', 'tool-router-v3.openapi.json');

const obj = (v: unknown): S | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as S) : undefined);

/** Follows local `$ref`s and flattens `allOf` into one view (the manifest schema's own style). */
function resolve(docRoot: S, s: S): S {
  let cur = s;
  while (typeof cur['$ref'] === 'string') {
    let t: unknown = docRoot;
    for (const seg of (cur['$ref'] as string).replace(/^#\//, '').split('/')) t = obj(t)?.[seg];
    cur = { ...obj(t)!, ...Object.fromEntries(Object.entries(cur).filter(([k]) => k !== '$ref')) };
  }
  return cur;
}

/** The alternatives of a schema: anyOf/oneOf branches, else itself. */
function branches(docRoot: S, s: S): S[] {
  const r = resolve(docRoot, s);
  const alts = (r['anyOf'] ?? r['oneOf']) as S[] | undefined;
  return alts === undefined ? [r] : alts.flatMap((a) => branches(docRoot, a));
}

function types(docRoot: S, s: S): Set<string> {
  const out = new Set<string>();
  for (const b of branches(docRoot, s)) {
    const t = b['type'];
    if (Array.isArray(t)) t.forEach((x) => out.add(String(x)));
    else if (typeof t === 'string') out.add(t);
    if (b['nullable'] === true) out.add('null');
  }
  return out;
}

function union(docRoot: S, s: S, key: 'properties'): Map<string, S> {
  const out = new Map<string, S>();
  for (const b of branches(docRoot, s)) for (const [k, v] of Object.entries(obj(b[key]) ?? {})) if (!out.has(k)) out.set(k, v as S);
  return out;
}

function firstOf(docRoot: S, s: S, key: 'items' | 'additionalProperties'): S | boolean | undefined {
  for (const b of branches(docRoot, s)) {
    const v = b[key];
    if (v !== undefined && (typeof v === 'boolean' || obj(v) !== undefined)) {
      if (key === 'additionalProperties' && v === false) continue;
      return typeof v === 'boolean' ? v : (v as S);
    }
  }
  return undefined;
}

function enumOf(docRoot: S, s: S): string[] | undefined {
  for (const b of branches(docRoot, s)) if (Array.isArray(b['enum'])) return (b['enum'] as unknown[]).map(String).sort();
  return undefined;
}

const problems: string[] = [];
const laterFields: string[] = [];

/** Every contract property must exist in the manifest schema with a compatible type and enum. */
function compare(c: S, m: S, path: string): void {
  const ct = types(contract, c);
  const mt = types(manifest, m);
  for (const t of ct) {
    const ok = mt.has(t) || (t === 'integer' && mt.has('number'));
    if (!ok) problems.push(`${path}: the contract allows ${t}, the manifest schema only ${[...mt].join('|')}`);
  }
  const ce = enumOf(contract, c);
  if (ce !== undefined && JSON.stringify(ce) !== JSON.stringify(enumOf(manifest, m))) problems.push(`${path}: enum differs`);
  if (ct.has('object')) {
    const cp = union(contract, c, 'properties');
    const mp = union(manifest, m, 'properties');
    for (const [k, v] of cp) {
      const mine = mp.get(k);
      if (mine === undefined) problems.push(`${path}.${k}: missing from the manifest schema`);
      else compare(v, mine, `${path}.${k}`);
    }
    // Where the contract's object takes free keys (a tool's JSON Schema), named properties in the
    // manifest schema constrain those keys; they are not new fields.
    const contractFree = firstOf(contract, c, 'additionalProperties');
    const free = contractFree === true || (typeof contractFree === 'object' && Object.keys(contractFree).length === 0);
    for (const [k, v] of mp) {
      if (cp.has(k) || free) continue;
      const description = String(resolve(manifest, v)['description'] ?? v['description'] ?? '');
      if (path === '' && k === 'name') continue; // manifest-only, checked below
      if (!description.includes('(later v3 field, not in the 13-endpoint spec)')) problems.push(`${path}.${k}: not in the contract and not marked as a later v3 field`);
      else laterFields.push(`${path}.${k}`.slice(1));
    }
    const ca = firstOf(contract, c, 'additionalProperties');
    if (ca !== undefined) {
      const ma = firstOf(manifest, m, 'additionalProperties');
      if (ma === undefined) problems.push(`${path}: the contract allows free keys, the manifest schema does not`);
      else if (typeof ca === 'object' && typeof ma === 'object') compare(ca, ma, `${path}.*`);
    }
  }
  if (ct.has('array')) {
    const ci = firstOf(contract, c, 'items');
    const mi = firstOf(manifest, m, 'items');
    if (typeof ci === 'object') {
      if (typeof mi !== 'object') problems.push(`${path}[]: items missing`);
      else compare(ci, mi, `${path}[]`);
    }
  }
}

describe('manifest schema vs the contract create request', () => {
  compare(contractSchema, manifest, '');

  it('has every contract field, with a compatible type and enum (shorthands resolved)', () => {
    expect(problems).toEqual([]);
  });

  it('marks every field beyond the contract as a later v3 field', () => {
    expect(laterFields.sort()).toEqual([
      'experimental.fast_mode',
      'experimental.link_url_overwrite',
      'experimental.permissions',
      'experimental.submit_feedback',
      'preload',
      'workbench.enable_tool_execution',
      'workbench.sandbox_size',
    ]);
  });

  it('requires what the contract requires', () => {
    expect(manifest['required']).toEqual(contractSchema['required']);
  });

  it('keeps `name` manifest-only and says so', () => {
    const name = obj(obj(manifest['properties'])!['name'])!;
    expect(String(name['description'])).toContain('not sent to the service');
    expect(name['pattern']).toBe('^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$');
  });

  it('vendors the contract unchanged: the SHA-256 recorded when it was taken', () => {
    // A new copy of the contract is a deliberate change: update the digest with it.
    expect(createHash('sha256').update(contractText).digest('hex')).toBe(CONTRACT_SHA256);
  });

  it.skipIf(skipBecause(!existsSync(sharedContract), `no shared/ folder beside the repository (${sharedContract}): the byte-for-byte comparison with the shared contract is skipped`))(
    'vendors the shared contract byte for byte',
    () => {
      expect(contractText).toBe(readFileSync(sharedContract, 'utf8'));
    },
  );
});

/** Objects whose members are JSON Schema keywords of the user's own tools: open on purpose. */
const openOnPurpose = new Set(['#/definitions/objectSchema', '#/definitions/anySchema', '#/definitions/objectSchema/properties/properties']);

describe('manifest schema quality', () => {
  const walk = (s: unknown, at: string, visit: (s: S, at: string) => void): void => {
    const o = obj(s);
    if (o === undefined) return;
    visit(o, at);
    for (const key of ['properties', 'definitions']) for (const [k, v] of Object.entries(obj(o[key]) ?? {})) walk(v, `${at}/${key}/${k}`, visit);
    for (const key of ['items', 'additionalProperties', 'propertyNames', 'not']) walk(o[key], `${at}/${key}`, visit);
    for (const key of ['allOf', 'anyOf', 'oneOf']) (o[key] as unknown[] | undefined)?.forEach((v, i) => walk(v, `${at}/${key}/${i}`, visit));
  };

  it('describes every property', () => {
    const missing: string[] = [];
    walk(manifest, '#', (s, at) => {
      for (const [k, v] of Object.entries(obj(s['properties']) ?? {})) {
        if (at.includes('/not')) continue;
        if (typeof obj(v)?.['description'] !== 'string') missing.push(`${at}/properties/${k}`);
      }
    });
    expect(missing).toEqual([]);
  });

  it('closes every object, or bounds and guards its free keys', () => {
    const open: string[] = [];
    walk(manifest, '#', (s, at) => {
      const t = s['type'];
      const isObject = t === 'object' || (Array.isArray(t) && t.includes('object'));
      if (!isObject || openOnPurpose.has(at)) return;
      if (s['additionalProperties'] === false) return;
      // A free-keyed map: its keys must be guarded and its size bounded.
      if (obj(s['additionalProperties']) !== undefined && s['propertyNames'] !== undefined && typeof s['maxProperties'] === 'number') return;
      open.push(at);
    });
    expect(open).toEqual([]);
  });

  it('bounds every string and list (ajv runs with allErrors on untrusted input)', () => {
    const unbounded: string[] = [];
    walk(manifest, '#', (s, at) => {
      if (s['type'] === 'string' && s['enum'] === undefined && typeof s['maxLength'] !== 'number') unbounded.push(at);
      if (s['type'] === 'array' && typeof s['maxItems'] !== 'number') unbounded.push(at);
    });
    expect(unbounded).toEqual([]);
  });
});
