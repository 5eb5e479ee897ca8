/**
 * Generated manifests for the fast-path differential test: valid, invalid and hazardous, in many
 * YAML styles, deterministically (a seeded generator). Each file is built as data, written out by
 * yaml or js-yaml with random styles (flow or block collections, plain, quoted and block scalars,
 * indentation, line folding, comments), then maybe given hazards (anchors, tags, `${VAR}`, tabs,
 * CRLF, odd Unicode, several documents, ...) or mutated at random (characters and lines inserted,
 * deleted, moved or re-indented), so that it also covers broken YAML.
 */
import { dump } from 'js-yaml';
import { Document, isMap, isScalar, isSeq, visit, type Scalar } from 'yaml';

export interface CorpusFile {
  file: string;
  content: string;
}

type Random = () => number;

/** mulberry32: small, fast and good enough to vary test inputs. */
export function seeded(seed: number): Random {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const toolkits = ['gmail', 'slack', 'github', 'notion', 'linear', 'jira', 'hubspot', 'googlecalendar', 'zendesk', 'pagerduty'];
const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const plainWords = ['fetch', 'send', 'list', 'create', 'archive', 'orders', 'Zoë', 'naïve café', '日本語', '😀 emoji', "it's", 'x-y', 'C:/path', 'x*y', 'Q&A', 'why?', '50%', 'v1.2'];
const trickyWords = ['a: colon', 'hash # sign', 'say "hi"', 'on', 'no', '0755', '1:20', 'null', 'true', '~', '- dash', '[x]', '{y}', '@home', '2001-12-14', '1e3', 'key:value'];

function helpers(r: Random): { pick: <T>(list: readonly T[]) => T; int: (n: number) => number; chance: (p: number) => boolean; word: () => string } {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  return { pick, int: (n) => Math.floor(r() * n), chance: (p) => r() < p, word: () => pick(r() < 0.15 ? trickyWords : plainWords) };
}

/** A manifest as data: mostly valid, sometimes with schema or rule findings. */
function manifestData(i: number, r: Random): Record<string, unknown> {
  const { pick, int, chance, word } = helpers(r);
  const kits = [...new Set(Array.from({ length: 1 + int(4) }, () => pick(toolkits)))];
  const others = toolkits.filter((k) => !kits.includes(k));
  const m: Record<string, unknown> = {};
  if (!chance(0.1)) m['name'] = chance(0.04) ? `shared-${int(5)}` : chance(0.03) ? `Bad_Name ${i}` : `m-${i}`;
  m['user_id'] = chance(0.05) ? word() : chance(0.03) ? 42 : `user-${i}`;
  m['toolkits'] = chance(0.4) ? kits : chance(0.03) ? { enable: kits, disable: others } : chance(0.02) ? { enable: [] } : chance(0.7) ? { enable: kits } : { disable: chance(0.05) ? kits : others };
  if (chance(0.6)) {
    const tools: Record<string, unknown> = {};
    for (const k of kits.slice(0, 1 + int(kits.length))) {
      const upper = k.toUpperCase();
      const variant = int(5);
      tools[k] =
        variant === 0 ? [`${upper}_FETCH`, `${upper}_SEND`] : variant === 1 ? { enable: [`${upper}_LIST`] } : variant === 2 ? { disable: [`${upper}_DELETE`] } : variant === 3 ? { tags: { enable: [pick(hints)] } } : chance(0.1) ? { enable: [`${upper}_A`], disable: [`${upper}_B`] } : { tags: [pick(hints)] };
    }
    m['tools'] = tools;
  }
  if (chance(0.4)) m['tags'] = chance(0.5) ? [pick(hints)] : { enable: [pick(hints.slice(0, 3))], ...(chance(0.1) ? { disable: [pick(hints)] } : {}) };
  if (chance(0.4)) m['auth_configs'] = { [kits[0]!]: chance(0.05) ? 'config-1' : `ac_${(i * 7919).toString(36)}` };
  if (chance(0.2)) m['connected_accounts'] = { [kits[0]!]: `ca_${i}` };
  if (chance(0.5)) {
    m['manage_connections'] = { enable: chance(0.05) ? 'yes' : pick([true, true, false, null]), callback_url: chance(0.05) ? 'not a url' : `https://app.example.com/connected/${i}` };
    if (chance(0.3)) (m['manage_connections'] as Record<string, unknown>)['enable_wait_for_connections'] = chance(0.8);
  }
  if (chance(0.5)) {
    const enable = chance(0.8);
    m['workbench'] = { enable, enable_proxy_execution: enable && chance(0.5), auto_offload_threshold: chance(0.05) ? pick([0, 1e9, -1]) : pick([10000, 2.5, 20000.0, 1e6]) };
    if (chance(0.2)) (m['workbench'] as Record<string, unknown>)['sandbox_size'] = pick(['standard', 'large', 'xlarge', chance(0.2) ? 'huge' : 'medium']);
  }
  if (chance(0.2)) m['multi_account'] = { enable: true, max_accounts_per_toolkit: chance(0.1) ? pick([11, 2.5]) : pick([2, 3, 10]), require_explicit_selection: pick([true, false]) };
  if (chance(0.15)) m['preload'] = { tools: [`${kits[0]!.toUpperCase()}_FETCH`, chance(0.1) ? `${kits[0]!.toUpperCase()}_FETCH` : 'X_Y'] };
  if (chance(0.4)) m['experimental'] = experimental(i, r);
  if (chance(0.03)) m[pick(['toolkit', 'colour', 'Name', 'api_key'])] = pick(['x', 1, ['a']]);
  if (chance(0.03)) m['user_id'] = pick(['ghp_0123456789abcdefghijABCDEFGHIJ012345', 'sk-proj-abcdefghijklmnopqrstuvwxyz012345', 'AKIAIOSFODNN7EXAMPLE']);
  return m;
}

function experimental(i: number, r: Random): Record<string, unknown> {
  const { pick, int, chance, word } = helpers(r);
  const out: Record<string, unknown> = {};
  if (chance(0.5)) out['assistive_prompt_config'] = { user_timezone: chance(0.1) ? pick(['yes', 'no', 'n']) : pick(['Europe/Paris', 'UTC', 'America/New_York', 'Asia/Tokyo']) };
  if (chance(0.5)) {
    const description = Array.from({ length: 1 + int(12) }, word).join(' ');
    out['custom_tools'] = [
      {
        slug: `TOOL_${i}`,
        name: word(),
        description: chance(0.3) ? `${description}\n\nSecond paragraph: ${word()}.\n` : description,
        input_schema: { type: 'object', properties: { limit: { type: pick(['integer', 'string']), description: word() } }, ...(chance(0.5) ? { required: ['limit'] } : {}) },
        ...(chance(0.3) ? { extends_toolkit: pick(toolkits) } : {}),
      },
    ];
  }
  if (chance(0.3)) out['permissions'] = { default: chance(0.1) ? 'never' : pick(['allow_all', 'ask_once_per_session']), overrides: { 'gmail:GMAIL_SEND': pick(['always_deny', 'ask_once']) } };
  if (chance(0.2)) out['fast_mode'] = chance(0.1) ? 'on' : pick([true, false]);
  return out;
}

/** The data as YAML text, in a random style. */
function render(data: Record<string, unknown>, r: Random): string {
  const { pick, chance, word } = helpers(r);
  if (chance(0.3)) {
    return dump(data, { indent: pick([2, 4]), noArrayIndent: chance(0.5), flowLevel: pick([-1, -1, 1, 2, 3]), lineWidth: pick([30, 80, -1]), quotingType: pick(["'", '"'] as const), forceQuotes: chance(0.1) });
  }
  const doc = new Document(data);
  visit(doc, {
    Scalar(key, node: Scalar) {
      if (typeof node.value === 'string' && key !== 'key') node.type = pick(['PLAIN', 'PLAIN', 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'] as const);
      if (chance(0.03)) node.comment = ` ${word()}`;
    },
    Map(_key, node) {
      node.flow = chance(0.1);
    },
    Seq(_key, node) {
      node.flow = chance(0.5);
    },
    Pair(_key, pair) {
      if (chance(0.05) && isScalar(pair.key)) pair.key.commentBefore = ` ${word()}`;
      if (chance(0.05) && (isMap(pair.value) || isSeq(pair.value))) pair.value.spaceBefore = true;
    },
  });
  if (chance(0.3)) doc.commentBefore = ' yaml-language-server: $schema=../schemas/session-manifest.schema.json';
  return doc.toString({ indent: pick([2, 2, 4]), indentSeq: chance(0.5), lineWidth: pick([0, 40, 80]), minContentWidth: 10, flowCollectionPadding: chance(0.5) });
}

/** One hazard of the fast path's list, written into the text. */
function addHazard(text: string, r: Random): string {
  const { pick, int } = helpers(r);
  const lines = text.split('\n');
  const at = int(lines.length);
  const hazards: Array<() => string> = [
    () => `${text}anchor: &a [gmail]\nalias: *a\n`,
    () => text.replace(/^user_id: .*$/m, 'user_id: !!str user-1'),
    () => text.replace(/^user_id: .*$/m, pick(['user_id: ${TEAM_USER_ID:-x}', 'user_id: ${NOT_SET_ANYWHERE}', 'user_id: "${1BAD}"', 'user_id: pre-$${X}'])),
    () => text.replace(/\n {2}/, '\n\t'),
    () => text.replace(/: /, ':\t'),
    () => text.replace(/\n/g, '\r\n'),
    () => `\ufeff${text}`,
    () => text.replace(/^name: (.*)$/m, 'name: $1\u00a0'),
    () => text.replace(/\n/, '\u2028\n'),
    () => `${text}---\nname: second-${int(3)}\nuser_id: u\n`,
    () => `%YAML 1.1\n---\n${text}`,
    () => `${text}<<: {workbench: {enable: true}}\n`,
    () => `${text}long: ${'x'.repeat(1100)}\n`,
    () => lines.map((l, i) => (i === at ? `${l} ` : l)).join('\n'),
    () => `${text}list:\n  - - a\n    -\n  - b\n`,
    () => `${text}value:\n# comment\n  text\nafter: 1\n`,
    () => `${text}? complex\n: key\n`,
    () => `${text}spaced : key\n`,
    () => `${text}quoted: "x"# comment\n`,
    () => `${text}escaped: "tab\\there"\n`,
    () => `${text}bell: a\u0007b\n`,
    () => `${text}reserved: @at\n`,
    () => `${text}__proto__: {polluted: true}\n`,
    () => `${text}1: number-key\n`,
    () => `${text}0x10: hex-key\n`,
    () => `${text}flow: {[a, b]}\n`,
    () => `${text}...\n`,
    () => `${text}${'['.repeat(40)}${']'.repeat(40)}\n`,
  ];
  return pick(hazards)();
}

/** A random edit of the text: a YAML-ish fragment inserted, characters deleted, a line copied, moved or re-indented. */
function mutate(text: string, r: Random): string {
  const { pick, int } = helpers(r);
  const fragments = [' ', '\n', '-', ':', '#', '[', ']', '{', '}', ',', '"', "'", '|', '>', '?', '&', '*', '!', '%', ': ', '- ', '\n  ', '|-\n', '>+\n', '# c', ' #c', '[a, b]', '{a: 1}', 'null', '0x1F', '1_000', '.5', 'yes', 'é', '\t', '---', '...', '\u00a0'];
  const lines = text.split('\n');
  const i = int(lines.length);
  switch (int(7)) {
    case 0:
    case 1: {
      const p = int(text.length + 1);
      return text.slice(0, p) + pick(fragments) + text.slice(p);
    }
    case 2: {
      const p = int(text.length);
      return text.slice(0, p) + text.slice(p + 1 + int(4));
    }
    case 3:
      lines.splice(i, 0, lines[i] ?? '');
      return lines.join('\n');
    case 4:
      lines.splice(i, 1);
      return lines.join('\n');
    case 5: {
      const j = int(lines.length);
      [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
      return lines.join('\n');
    }
    default: {
      const d = int(7) - 3;
      const line = lines[i] ?? '';
      lines[i] = d >= 0 ? ' '.repeat(d) + line : line.slice(Math.min(-d, line.length - line.trimStart().length));
      return lines.join('\n');
    }
  }
}

/** `count` generated manifest files, the same for the same seed. */
export function generateCorpus(count: number, seed: number): CorpusFile[] {
  const r = seeded(seed);
  const { int, chance } = helpers(r);
  const out: CorpusFile[] = [];
  for (let i = 0; i < count; i++) {
    let text = render(manifestData(i, r), r);
    if (chance(0.3)) {
      const n = 1 + int(2);
      for (let k = 0; k < n; k++) text = addHazard(text, r);
    }
    if (chance(0.2)) {
      const n = 1 + int(3);
      for (let k = 0; k < n; k++) text = mutate(text, r);
    }
    out.push({ file: `f${String(i).padStart(5, '0')}.${chance(0.1) ? 'yml' : 'yaml'}`, content: text });
  }
  return out;
}
