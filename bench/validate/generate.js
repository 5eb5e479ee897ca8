// Writes N realistic ~30-line manifests into a folder, deterministically (a seeded PRNG), so that
// sessionctl and ajv-cli read exactly the same files. About 1 in 50 carries a schema error, so both
// tools also walk their error paths.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const toolkits = ['gmail', 'slack', 'github', 'notion', 'googledrive', 'google_analytics', 'linear', 'jira', 'hubspot', 'zendesk'];
const tags = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/**
 * Two real tools per toolkit whose tools the bundled catalogue lists, so that a generated manifest
 * is clean against the catalogue too, as a real one is (validate checks tool slugs since issue 13).
 * The catalogue lists no tools of hubspot and zendesk, whose slugs are not checked.
 */
const realTools = {
  gmail: ['GMAIL_DELETE_MESSAGE', 'GMAIL_ADD_LABEL_TO_EMAIL'],
  slack: ['SLACK_DELETE_A_MESSAGE', 'SLACK_ADD_EMOJI'],
  github: ['GITHUB_DELETE_A_REPOSITORY', 'GITHUB_DELETE_ADMIN_BRANCH_PROTECTION'],
  notion: ['NOTION_ARCHIVE_NOTION_PAGE', 'NOTION_CREATE_NOTION_PAGE'],
  googledrive: ['GOOGLEDRIVE_DELETE_DRIVE', 'GOOGLEDRIVE_DELETE_PERMISSION'],
  google_analytics: ['GOOGLE_ANALYTICS_CREATE_EXPANDED_DATA_SET', 'GOOGLE_ANALYTICS_GET_ACCOUNT'],
  linear: ['LINEAR_DELETE_LINEAR_ISSUE', 'LINEAR_UPDATE_ISSUE'],
  jira: ['JIRA_DELETE_ISSUE', 'JIRA_CREATE_ISSUE'],
};

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
    disable: [${(realTools[enabled[0]] ?? [`${enabled[0].toUpperCase()}_DELETE_ITEM`, `${enabled[0].toUpperCase()}_ARCHIVE_ITEM`]).join(', ')}]
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

/**
 * The project variant of the same files, as a healthy repository has it: a sessionctl.yaml with
 * severities, an override and eleven policies (one of each kind) that the manifests pass, and in
 * one manifest in ten a user id from before the directory, whose policy finding a comment
 * suppresses with its reason. Compared with the plain files (no project file, no comments), it
 * measures what the project configuration, suppressions and policies cost.
 */
export function generateProject(dir, count, seed = 42) {
  mkdirSync(dir, { recursive: true });
  const random = rng(seed);
  for (let i = 0; i < count; i++) {
    let text = manifest(i, random);
    if (i % 10 === 0) text = text.replace(/^user_id: .*$/m, `# sessionctl-ignore policy/directory-users: provisioned before the directory (BENCH-1)\nuser_id: legacy-${i}`);
    writeFileSync(join(dir, `m${String(i).padStart(6, '0')}.yaml`), text);
  }
  writeFileSync(join(dir, 'sessionctl.yaml'), projectConfig);
}

const projectConfig = `rules:
  rule/empty-allowlist: error
  catalog/unknown-toolkit: error
overrides:
  - files: ["m0000*.yaml"]
    rules:
      rule/proxy-without-workbench: info
policies:
  - { id: allowed, message: Known toolkits only, allowed_toolkits: [${toolkits.join(', ')}] }
  - { id: denied, message: No code hosting, denied_toolkits: [gitlab] }
  - { id: focused, message: Keep sessions focused, max_toolkits: 5 }
  - { id: no-delete, message: No repository deletion, denied_tools: [GITHUB_DELETE_A_REPOSITORY] }
  - { id: lean-preload, message: Lean preload, max_preloaded_tools: 5 }
  - { id: no-destructive, message: No destructive tools, required_tags: { disable: [destructiveHint], toolkits: [gitlab] } }
  - { id: no-opt-in, message: No destructive opt-in, forbidden_tags: { enable: [destructiveHint], toolkits: [gitlab] } }
  - { id: no-wait, message: No waiting, required_values: { manage_connections.enable_wait_for_connections: false } }
  - { id: no-custom, message: No custom tools, forbidden_keys: [experimental.custom_tools] }
  - { id: directory-users, message: Directory users, files: ["*.yaml"], user_id_pattern: "^user-[0-9]+$" }
  - { id: auth-configs, message: Known auth configs, auth_config_pattern: "^ac_[a-z0-9]+$" }
`;

if (process.argv[1] === new URL(import.meta.url).pathname) {
  generate(process.argv[2], Number(process.argv[3] ?? 1000));
}
