// Writes N realistic ~30-line manifests into a folder, deterministically (a seeded PRNG), so that
// sessionctl and ajv-cli read exactly the same files. About 1 in 50 carries a schema error, so both
// tools also walk their error paths.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const toolkits = ['gmail', 'slack', 'github', 'notion', 'googledrive', 'google_analytics', 'linear', 'jira', 'hubspot', 'zendesk'];
const tags = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function manifest(i, random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const start = Math.floor(random() * toolkits.length);
  const enabled = [0, 3, 7].map((k) => toolkits[(start + k) % toolkits.length]);
  const broken = i % 50 === 49;
  return `# yaml-language-server: $schema=../schemas/session-manifest.schema.json
# Generated bench manifest ${i}.
name: bench-${i}
user_id: user-${i}
toolkits:
  enable: [${enabled.join(', ')}]
tools:
  ${enabled[0]}:
    disable: [${enabled[0].toUpperCase()}_DELETE_ITEM, ${enabled[0].toUpperCase()}_ARCHIVE_ITEM]
  ${enabled[2]}:
    tags:
      enable: [${pick(tags)}]
tags:
  disable: [destructiveHint]
auth_configs:
  ${enabled[0]}: ac_${(i * 7919).toString(36)}
manage_connections:
  enable: ${broken ? '"yes"' : 'true'}
  callback_url: "https://app.example.com/connected/${i}"
  enable_wait_for_connections: false
workbench:
  enable: true
  enable_proxy_execution: ${random() < 0.5}
  auto_offload_threshold: ${10000 + (i % 10) * 1000}
multi_account:
  enable: false
experimental:
  assistive_prompt_config:
    user_timezone: ${pick(['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC'])}
`;
}

export function generate(dir, count, seed = 42) {
  mkdirSync(dir, { recursive: true });
  const random = rng(seed);
  for (let i = 0; i < count; i++) writeFileSync(join(dir, `m${String(i).padStart(6, '0')}.yaml`), manifest(i, random));
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  generate(process.argv[2], Number(process.argv[3] ?? 1000));
}
