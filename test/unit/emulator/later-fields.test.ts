import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { laterCreateFields } from '../../../scripts/generate/later-fields.js';

type Schema = { description?: string; properties?: Record<string, Schema> };

/** Paths of the outermost manifest-schema properties marked as later v3 fields. */
function markedPaths(schema: Schema, at: string[] = []): string[] {
  const out: string[] = [];
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (sub.description?.includes('(later v3 field')) out.push([...at, name].join('.'));
    else out.push(...markedPaths(sub, [...at, name]));
  }
  return out;
}

describe('the emulator accepts the later v3 fields the manifest schema accepts', () => {
  it('both lists name the same fields', () => {
    const schema = JSON.parse(readFileSync(new URL('../../../schemas/session-manifest.schema.json', import.meta.url), 'utf8')) as Schema;
    const emulator = laterCreateFields.map((f) => [...f.at, f.name].join('.'));
    expect(emulator.sort()).toEqual(markedPaths(schema).sort());
  });
});
