import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('README', () => {
  it("the manifest under 'A manifest' is examples/support-agent.yaml, byte for byte", () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## A manifest'));
    const block = /```yaml\n([\s\S]*?)```\n/.exec(section);
    expect(block).not.toBeNull();
    expect(block![1]).toBe(read('examples/support-agent.yaml'));
  });
});
