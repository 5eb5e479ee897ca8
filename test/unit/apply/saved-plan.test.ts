import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readSavedPlan, savedPlanPaths } from '../../../src/runner/saved-plan.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('plan');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const good = { planVersion: 1, created_at: 't', files: ['m/a.yaml'], state: '.sessionctl/state.json', manifests_hash: 'h', state_hash: '', items: [] };

describe('readSavedPlan', () => {
  test.each([
    ['a YAML manifest', 'a.yaml', 'name: a\n'],
    ['JSON that is not a plan', 'x.json', '{"user_id": "u"}'],
    ['text that is not JSON', 'x.json', 'not json'],
  ])('%s is not a plan (apply treats it as a manifest path)', async (_name, file, text) => {
    await writeFile(join(dir, file), text);
    expect(await readSavedPlan(join(dir, file))).toBeUndefined();
  });

  test('a missing file is not a plan', async () => {
    expect(await readSavedPlan(join(dir, 'nope.json'))).toBeUndefined();
  });

  test('a plan reads back, with paths relative to where it was made', async () => {
    await writeFile(join(dir, 'plan.json'), JSON.stringify(good));
    const plan = await readSavedPlan(join(dir, 'plan.json'));
    expect(plan).toEqual(good);
    expect(savedPlanPaths(plan!, '/work')).toEqual({ files: ['/work/m/a.yaml'], state: '.sessionctl/state.json' });
  });

  test.each([
    ['a newer version', { ...good, planVersion: 2 }, /format version 2/],
    ['a damaged plan', { ...good, files: 'm/a.yaml' }, /damaged/],
    ['no hashes', { ...good, manifests_hash: undefined }, /damaged/],
  ])('%s is an input error', async (_name, value, message) => {
    await writeFile(join(dir, 'plan.json'), JSON.stringify(value));
    await expect(readSavedPlan(join(dir, 'plan.json'))).rejects.toThrow(message);
  });
});
