/**
 * The generated parts of `docs/policies.md`, between `<!-- generated:NAME -->` and
 * `<!-- /generated:NAME -->` markers; the prose around them is written by hand in the same file.
 *
 * - `policy-keys`: the keys of a policy, from the config schema;
 * - `kinds`: every kind of condition, its description from the schema, and its example from the
 *   kind's module, run through the policy engine, with the finding it gives at its line:col. An
 *   example that gives no finding fails the generation: the docs cannot show a policy that does
 *   not work.
 */
import { parseManifestText } from '../../src/manifest/parse.js';
import { PolicySet, policyKinds } from '../../src/validate/policies/index.js';
import type { SchemaNode } from './manifest-md.js';

const FILE = 'docs/policies.md';

function section(name: string): RegExp {
  return new RegExp(`(<!-- generated:${name} -->\\n)[\\s\\S]*?(<!-- /generated:${name} -->)`);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function typeOf(node: SchemaNode | undefined, schema: SchemaNode): string {
  if (node?.$ref !== undefined) return typeOf(schema.definitions?.[node.$ref.replace('#/definitions/', '')], schema);
  if (node?.enum !== undefined) return node.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (node?.type === 'array') return 'list';
  if (node?.type === 'object') return 'mapping';
  return Array.isArray(node?.type) ? node.type.join(' \\| ') : (node?.type ?? 'any');
}

function policyKeys(schema: SchemaNode): string {
  const policy = schema.definitions?.['policy'];
  const conditions = new Set(policyKinds.map((k) => k.name));
  const rows = Object.entries(policy?.properties ?? {})
    .filter(([key]) => !conditions.has(key))
    .map(([key, node]) => `| \`${key}\` | ${typeOf(node, schema)} | ${policy?.required?.includes(key) === true ? 'yes' : 'no'} | ${cell(node.description ?? '')} |`);
  return ['| Key | Type | Required | Meaning |', '|---|---|---|---|', ...rows, `| one condition | see below | yes | Exactly one of the ${policyKinds.length} kinds below. |`].join('\n');
}

/** The example's finding, rendered as the human report's first line renders it. */
function exampleFindings(kind: (typeof policyKinds)[number]): string[] {
  const spec = parseManifestText(kind.example.policy, 'sessionctl.yaml', { env: {} }).documents[0]?.data as Record<string, unknown> | undefined;
  if (spec === undefined) throw new Error(`${FILE}: the example policy of ${kind.name} does not parse`);
  const doc = parseManifestText(kind.example.manifest, '/project/manifest.yaml', { env: {} }).documents[0];
  if (doc === undefined) throw new Error(`${FILE}: the example manifest of ${kind.name} does not parse`);
  const set = new PolicySet([{ id: String(spec['id']), message: String(spec['message']), severity: 'error', kind: kind.name, value: spec[kind.name] }], '/project');
  const found = set.check(doc);
  if (found.length === 0) throw new Error(`${FILE}: the example of ${kind.name} gives no finding`);
  return found.map((d) => `manifest.yaml:${d.range!.start.line}:${d.range!.start.col}  ${d.severity}  ${d.message}  ${d.code}`);
}

function kinds(schema: SchemaNode): string {
  const policy = schema.definitions?.['policy'];
  const out: string[] = ['| Condition | What it requires |', '|---|---|'];
  for (const k of policyKinds) out.push(`| [\`${k.name}\`](#${k.name}) | ${cell(policy?.properties?.[k.name]?.description ?? '')} |`);
  for (const k of policyKinds) {
    out.push(
      '',
      `### \`${k.name}\``,
      '',
      policy?.properties?.[k.name]?.description ?? '',
      '',
      'In `sessionctl.yaml`:',
      '',
      '```yaml',
      'policies:',
      ...k.example.policy.split('\n').map((line, i) => `${i === 0 ? '  - ' : '    '}${line}`),
      '```',
      '',
      'A manifest that breaks it, and the finding:',
      '',
      '```yaml',
      k.example.manifest,
      '```',
      '',
      '```text',
      ...exampleFindings(k),
      '```',
    );
  }
  return out.join('\n');
}

/** `docs/policies.md` with its generated parts brought up to date from the schema and the kinds. */
export function policiesMarkdown(current: string, schema: SchemaNode): string {
  let text = current;
  for (const [name, body] of [
    ['policy-keys', policyKeys(schema)],
    ['kinds', kinds(schema)],
  ] as const) {
    const re = section(name);
    if (!re.test(text)) throw new Error(`${FILE} has no <!-- generated:${name} --> ... <!-- /generated:${name} --> section`);
    text = text.replace(re, (_m, open: string, close: string) => `${open}${body}\n${close}`);
  }
  return text;
}
