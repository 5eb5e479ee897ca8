import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { everyFormat, sentinelWorld, type SentinelWorld } from './sentinel-world.js';
import { seedAccounts } from '../conformance/seed-accounts.js';

/**
 * Issue 17: a secret that reaches a manifest through `${VAR}` stays secret in every command,
 * format and file. A sentinel is put into every free-text field of a manifest (user id, auth
 * config and connected account ids, callback URL, link URL, custom tool and toolkit names and
 * descriptions), once as a value of a known secret format under plain variable names, once under
 * variable names that say "secret". The emulator echoes the values back, drifts them, and puts them
 * into error bodies; the sentinel must appear in no output and no file, while the outputs still
 * name the field and the variable.
 *
 * To cover a new command (export), add a step (`w.run(...)`): its stdout, stderr and files join the
 * final check.
 */

interface Case {
  kind: string;
  sentinel: string;
  /** Variable name per field. */
  vars: { user: string; auth: string; account: string; callback: string; link: string; toolName: string; toolDesc: string; kitName: string; kitDesc: string; size: string };
  /** The callback as written in the manifest (a whole `${VAR}`, or a secret inside a URL). */
  callbackSource: string;
  /** The value of the callback's variable. */
  callbackValue: (s: string) => string;
}

const KNOWN = 'ghp_S3ntinelKnownFormat0123456789abcdefXY';
const NAMED = 's2SentinelZq8Kx3Wm9Pt5';

const cases: Case[] = [
  {
    kind: 'a known secret format under plain variable names',
    sentinel: KNOWN,
    vars: { user: 'APP_USER', auth: 'GMAIL_AUTH_CONFIG', account: 'GITHUB_ACCOUNT', callback: 'CALLBACK_URL', link: 'LINK_BASE', toolName: 'TOOL_NAME', toolDesc: 'TOOL_DESCRIPTION', kitName: 'KIT_NAME', kitDesc: 'KIT_DESCRIPTION', size: 'SANDBOX' },
    callbackSource: '${CALLBACK_URL}',
    callbackValue: (s) => `https://hooks.example.com/cb?token=${s}`,
  },
  {
    kind: 'a plain value under variable names that say secret',
    sentinel: NAMED,
    vars: { user: 'USER_TOKEN', auth: 'GMAIL_AUTH_SECRET', account: 'GITHUB_ACCOUNT_TOKEN', callback: 'HOOK_TOKEN', link: 'LINK_TOKEN', toolName: 'TOOL_NAME_SECRET', toolDesc: 'TOOL_DESC_SECRET', kitName: 'KIT_NAME_SECRET', kitDesc: 'KIT_DESC_PASSWORD', size: 'SIZE_SECRET' },
    callbackSource: 'https://hooks.example.com/cb?token=${HOOK_TOKEN}',
    callbackValue: (s) => s,
  },
];

function manifest(c: Case): string {
  const v = c.vars;
  return [
    'name: sentinel',
    `user_id: \${${v.user}}`,
    'toolkits: [gmail, github]',
    'auth_configs:',
    `  gmail: \${${v.auth}}`,
    'connected_accounts:',
    `  github: \${${v.account}}`,
    'manage_connections:',
    '  enable: true',
    `  callback_url: "${c.callbackSource}"`,
    'experimental:',
    `  link_url_overwrite: \${${v.link}}`,
    '  custom_tools:',
    '    - slug: lookup_order',
    `      name: \${${v.toolName}}`,
    `      description: \${${v.toolDesc}}`,
    '      input_schema: { type: object, properties: { id: { type: string } } }',
    '  custom_toolkits:',
    '    - slug: crm_kit',
    `      name: \${${v.kitName}}`,
    `      description: \${${v.kitDesc}}`,
    '      tools:',
    '        - { slug: find, name: Find, description: Finds a record, input_schema: { type: object, properties: {} } }',
    '',
  ].join('\n');
}

/** A manifest only `validate` reads: its findings quote the values (an enum's "got ...", cut short when long). */
function invalid(c: Case): string {
  return ['name: sentinel-invalid', 'user_id: u1', 'workbench:', `  sandbox_size: \${${c.vars.size}}`, ''].join('\n');
}

function variables(c: Case, s: string): Record<string, string> {
  const v = c.vars;
  return {
    [v.user]: `user-${s}`,
    [v.auth]: `ac_x-${s}`,
    [v.account]: `ca_x-${s}`,
    [v.callback]: c.callbackValue(s),
    [v.link]: `https://links.example.com/${s}`,
    [v.toolName]: `Order lookup ${s}`,
    [v.toolDesc]: `Looks up an order with ${s}`,
    [v.kitName]: `CRM ${s}`,
    [v.kitDesc]: `The CRM, reached with ${s}`,
    [v.size]: `a-sandbox-size-long-enough-to-be-cut-in-a-message-${s}`,
  };
}

const envelope = (message: string, s: string) => ({
  error: { message, code: 10400, slug: `Bad_${s}`, status: 400, request_id: `req_${s}`, suggested_fix: `do not send ${s}`, errors: [`payload.manage_connections.callback_url: ${s} is refused`] },
});

let world: SentinelWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.each(cases)('a sentinel as $kind', (c) => {
  test('appears in no output, report, plan file, state, trace or $GITHUB_OUTPUT of validate, plan, apply, diff, get, history, import and destroy', async () => {
    const s = c.sentinel;
    const env = { COMPOSIO_API_KEY: 'ak_sentinel_test_key_0000', ...variables(c, s) };
    const w = (world = await sentinelWorld({ 'm/sentinel.yaml': manifest(c), 'invalid/sentinel-invalid.yaml': invalid(c) }, env));
    // The pinned account exists, as it must on the service: made by the test, not by a run.
    await seedAccounts(w.emulator.url, env.COMPOSIO_API_KEY, [{ id: `ca_x-${s}`, user_id: `user-${s}`, toolkit: 'github' }]);

    // validate: the findings quote the value; it is named by its variable instead.
    const validated = await w.run('validate', ['validate', 'm', 'invalid', ...everyFormat('validate')]);
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(`(sensitive: ${c.vars.size})`);

    // plan (create), saved; apply the saved plan, verbose, with $GITHUB_OUTPUT.
    const planned = await w.run('plan', ['plan', 'm', '--out', 'plan.json', ...everyFormat('plan')]);
    expect(planned.exitCode).toBe(0);
    expect(planned.stdout).toContain(`user (sensitive: ${c.vars.user})`);
    const planReport = JSON.parse(await readFile(join(w.dir, 'reports/plan.json'), 'utf8'));
    expect(planReport.plan.items[0].body.manage_connections.callback_url).toBe(`(sensitive: ${c.vars.callback})`);
    const applied = await w.run('apply', ['apply', 'plan.json', '--verbose', '--github-output', ...everyFormat('apply')]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const state = JSON.parse(await readFile(join(w.dir, '.sessionctl/state.json'), 'utf8'));
    const id: string = state.sessions[0].session_id;
    expect(state.sessions[0].user_id).toMatch(new RegExp(`^\\(sensitive: ${c.vars.user}\\) sha256:[0-9a-f]{64}$`));

    // get: the service echoes every value back.
    expect((await w.run('get', ['get', 'sentinel'])).exitCode).toBe(0);
    const got = await w.run('get json', ['get', id, '--format', 'json']);
    expect(JSON.parse(got.stdout).config.manage_connections.callback_url).toBe(`(sensitive: ${c.vars.callback})`);

    // The service drifts: another value, holding the sentinel, in the sensitive fields.
    await w.admin('POST', `sessions/${id}/config`, {
      config: { user_id: `other-${s}`, manage_connections: { callback_url: `https://evil.example/?stolen=${s}` }, auth_configs: { gmail: `ac_rotated-${s}` } },
    });
    const diffed = await w.run('diff', ['diff', 'm', '--verbose', ...everyFormat('diff')]);
    expect(diffed.exitCode).toBe(1);
    expect(diffed.stdout).toContain(`config.manage_connections.callback_url changed (sensitive: ${c.vars.callback})`);
    expect(diffed.stdout).toContain(`config.auth_configs.gmail changed (sensitive: ${c.vars.auth})`);
    const refreshed = await w.run('plan --refresh', ['plan', 'm', '--refresh', ...everyFormat('plan-refresh')]);
    expect(refreshed.exitCode).toBe(0);
    expect(refreshed.stdout).toContain(`manage_connections.callback_url: changed (sensitive: ${c.vars.callback})`);

    // The secret is rotated: plan sees it by its digest, a plan saved before it is stale.
    const rotated = { [c.vars.callback]: c.callbackValue(`${s}Rotated`) };
    await w.run('plan --out (before rotation)', ['plan', 'm', '--out', 'plan-old.json']);
    const rotatedPlan = await w.run('plan (rotated)', ['plan', 'm', ...everyFormat('plan-rotated')], rotated);
    expect(rotatedPlan.stdout).toContain(`manage_connections.callback_url: changed (sensitive: ${c.vars.callback})`);
    const stale = await w.run('apply stale plan', ['apply', 'plan-old.json'], rotated);
    expect(stale.exitCode).toBe(1);
    expect(stale.stdout).toContain(`${c.vars.callback} has another value than the plan was made with`);

    // The service puts the values it was sent into its error bodies (whole, and the secret alone).
    const echo = `refused ${variables(c, s)[c.vars.callback]} for ${variables(c, s)[c.vars.user]}`;
    await w.admin('POST', 'faults', { route: 'update', status: 400, body: envelope(echo, s) });
    const failed = await w.run('apply (update refused)', ['apply', 'm', '--verbose', '--github-output', ...everyFormat('apply-failed')]);
    expect(failed.exitCode).toBe(3);
    expect(failed.stdout).toContain('update refused');
    await w.admin('POST', 'faults', { route: 'get', status: 400, body: envelope(echo, s) });
    const getFailed = await w.run('get (refused)', ['get', 'sentinel', '--verbose']);
    expect(getFailed.exitCode).toBe(3);
    expect(getFailed.stderr).toContain(`(sensitive: ${c.vars.callback})`);

    // export writes the recorded sensitive fields as the variables they came from, to stdout and to a file.
    const exported = await w.run('export', ['export', 'sentinel']);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`user_id: \${${c.vars.user}} # set ${c.vars.user}: a sensitive value`);
    expect(exported.stdout).toContain(`gmail: \${${c.vars.auth}}`);
    expect((await w.run('export --out', ['export', id, '--out', 'exported.yaml'])).exitCode).toBe(0);
    expect(await readFile(join(w.dir, 'exported.yaml'), 'utf8')).toContain(`callback_url: \${${c.vars.callback}}`);
    expect((await w.run('get yaml', ['get', 'sentinel', '--format', 'yaml'])).exitCode).toBe(0);

    // The service keeps every config version: history shows them masked.
    expect((await w.run('history', ['history', 'sentinel'])).exitCode).toBe(0);
    expect((await w.run('history json', ['history', 'sentinel', '--format', 'json'])).exitCode).toBe(0);

    // Adopted into an empty state: refused, as the service moved the session to another user
    // (the drift above), and the message names both users by their variables. Then destroyed.
    const recordedState = await readFile(join(w.dir, '.sessionctl/state.json'), 'utf8');
    await w.write('.sessionctl/state.json', '{"version": 2, "sessions": []}\n');
    const imported = await w.run('import', ['import', 'sentinel', id, 'm', ...everyFormat('import')]);
    expect(imported.exitCode).toBe(1);
    expect(imported.stdout).toContain(`the manifest declares "(sensitive: ${c.vars.user})"`);
    await w.write('.sessionctl/state.json', recordedState);
    const destroyed = await w.run('destroy', ['destroy', 'm', '--auto-approve', ...everyFormat('destroy')]);
    expect(destroyed.exitCode, destroyed.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(w.dir, '.sessionctl/state.json'), 'utf8')).sessions).toEqual([]);

    await w.expectNowhere(s);
  });
});
