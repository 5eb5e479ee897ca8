import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/commands.md', () => {
  it("the manifest under 'A manifest' is examples/support-agent.yaml, byte for byte", () => {
    const page = read('docs/commands.md');
    const section = page.slice(page.indexOf('## A manifest'));
    const block = /```yaml\n([\s\S]*?)```\n/.exec(section);
    expect(block).not.toBeNull();
    expect(block![1]).toBe(read('examples/support-agent.yaml'));
  });
});
