import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/**
 * Plan agrees with each API version's PATCH contract: a change PATCH cannot carry is a replace that
 * says why (never an update the service refuses with 400), and an adopted session is updated
 * with only what PATCH accepts.
 */
const manifest = (tz: string, extra = ''): string =>
  `name: agent\nuser_id: u1\ntoolkits: [gmail]\nexperimental:\n  assistive_prompt_config:\n    user_timezone: ${tz}\n${extra}`;

const validateReport = new Ajv({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ids = async (w: ApplyWorld): Promise<string[]> => (await w.state()).sessions.map((s) => s.session_id);

describe('the PATCH contract of each API version', () => {
  test.each(['3', '3.1'])('v%s: a changed assistive prompt config is a replace that says why, and apply does it', async (version) => {
    const w = (world = await applyWorld({ 'm/agent.yaml': manifest('Europe/Paris') }));
    const env = { COMPOSIO_API_VERSION: version };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);
    const [first] = await ids(w);
    await w.write('m/agent.yaml', manifest('UTC'));

    const json = await w.run(['plan', 'm', '--format', 'json'], env);
    const report: unknown = JSON.parse(json.stdout);
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    const item = (report as { plan: { items: Array<Record<string, unknown>> } }).plan.items[0]!;
    expect([item.action, item.reason, item.patch, item.unpatchable]).toStrictEqual(['replace', 'not-patchable', null, { fields: ['experimental.assistive_prompt_config'], api_version: version }]);
    const human = await w.run(['plan', 'm'], env);
    expect(human.stdout).toContain(`        experimental.assistive_prompt_config changed: the v${version} PATCH cannot change it, so a new session replaces ${first}, which is then deleted\n`);

    const applied = await w.run(['apply', 'm'], env);
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    const [second] = await ids(w);
    expect(second).not.toBe(first);
    expect((await w.run(['plan', 'm', '--detailed-exitcode'], env)).exitCode).toBe(0);
  });

  test('v3.1: a member its PATCH takes is an update in place; v3 takes none of experimental', async () => {
    const w = (world = await applyWorld({ 'm/agent.yaml': manifest('UTC') }));
    const v31 = { COMPOSIO_API_VERSION: '3.1' };
    expect((await w.run(['apply', 'm'], v31)).exitCode).toBe(0);
    const [first] = await ids(w);
    await w.write('m/agent.yaml', manifest('UTC', '  link_url_overwrite: https://links.example.com/\n'));
    const planned = JSON.parse((await w.run(['plan', 'm', '--format', 'json'], v31)).stdout).plan.items[0];
    expect([planned.action, planned.patch]).toStrictEqual(['update', { experimental: { link_url_overwrite: 'https://links.example.com/' } }]);
    const v3 = JSON.parse((await w.run(['plan', 'm', '--format', 'json'], { COMPOSIO_API_VERSION: '3' })).stdout).plan.items[0];
    expect([v3.action, v3.unpatchable?.fields]).toStrictEqual(['replace', ['experimental.link_url_overwrite']]);
    const applied = await w.run(['apply', 'm'], v31);
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    expect(await ids(w)).toStrictEqual([first]);
  });

  test.each(['3', '3.1'])('v%s: after import, apply sends only what PATCH accepts', async (version) => {
    const w = (world = await applyWorld({ 'm/agent.yaml': manifest('Europe/Paris') }));
    const env = { COMPOSIO_API_VERSION: version };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);
    const [id] = await ids(w);
    // Adopted into an empty state with a manifest that differs: the recorded body is unknown.
    await w.write('.sessionctl/state.json', '{"version": 2, "sessions": []}\n');
    await w.write('m/agent.yaml', manifest('Europe/Paris').replace('[gmail]', '[gmail, slack]'));
    expect((await w.run(['import', 'agent', id!, 'm'], env)).exitCode).toBe(1);
    const planned = JSON.parse((await w.run(['plan', 'm', '--format', 'json'], env)).stdout).plan.items[0];
    expect([planned.action, Object.keys(planned.patch)]).toStrictEqual(['update', ['toolkits']]);
    const applied = await w.run(['apply', 'm'], env);
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    expect(await ids(w)).toStrictEqual([id]);
    expect((await w.admin('GET', `sessions/${id}`)).config.toolkits.enabled).toStrictEqual(['gmail', 'slack']);
  });
});
