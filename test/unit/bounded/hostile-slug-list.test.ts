import { describe, expect, it } from 'vitest';
import { builtInCatalog, catalogFromJson } from '../../../src/catalog/catalog.js';
import { codeFrame, splitLines, windowed } from '../../../src/diagnostics/codeframe.js';
import { catalogSlugs, SUGGESTIONS_PER_DOCUMENT, suggest, suggestionBudget } from '../../../src/validate/catalog-slugs.js';
import { unknownTool } from '../../../src/validate/rules/unknown-tool.js';
import { unknownToolkit } from '../../../src/validate/rules/unknown-toolkit.js';
import { doc } from '../validate/helpers.js';

/*
 * Issue 29, item 5: a 500 KB flow list of 70,000 unknown toolkit slugs ran for minutes. Two costs
 * grew with it: a did-you-mean per slug (each against every toolkit of the catalogue) and a code
 * frame per finding that turned the whole 500 KB line into cells. Both are bounded now, and these
 * tests count the work instead of timing it (bench/hostile times the whole run).
 */

/** Misspellings of real slugs, each distinct (so no remembered answer hides the work). */
function misspelt(slugs: readonly string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const s = slugs[i % slugs.length]!;
    const k = Math.floor(i / slugs.length);
    if (s.length < 5) continue;
    // Swap two neighbours at a position that moves with k, then add k's letters: still one or two edits away.
    const at = 1 + (k % (s.length - 2));
    out.push(`${s.slice(0, at)}${s[at + 1]}${s[at]}${s.slice(at + 2)}`);
  }
  return [...new Set(out)].slice(0, n);
}

describe('did-you-mean per document is bounded', () => {
  it('a document with more unknown toolkits than the budget: every one is found, only the first ones get a suggestion', async () => {
    const catalog = await builtInCatalog();
    const wrong = misspelt(catalog.toolkits.map((t) => t.slug), SUGGESTIONS_PER_DOCUMENT + 60).map((s) => `${s}-x${s.length}`);
    const d = doc(`toolkits: [${wrong.join(', ')}]\n`);
    const found = unknownToolkit.check(d, catalog, catalogSlugs(d.data));
    expect(found).toHaveLength(wrong.length);
    const hinted = found.filter((f) => f.hint?.startsWith('Did you mean')).length;
    expect(hinted).toBeLessThanOrEqual(SUGGESTIONS_PER_DOCUMENT);
    expect(found.slice(SUGGESTIONS_PER_DOCUMENT).every((f) => f.hint?.startsWith('Check the slug'))).toBe(true);
  });

  it('the budget counts suggestions computed, not findings: remembered answers are free', () => {
    const catalog = catalogFromJson({ toolkits: [], tools: [] });
    let computed = 0;
    const candidates = () => {
      computed++;
      return ['gmail'];
    };
    const budget = suggestionBudget();
    for (let i = 0; i < 3 * SUGGESTIONS_PER_DOCUMENT; i++) suggest(catalog, 'bounded-test', `gmial${i}`, candidates, budget);
    expect(computed).toBe(SUGGESTIONS_PER_DOCUMENT);
    expect(budget.left).toBe(0);
    // Asked before: answered from memory even with nothing left.
    expect(suggest(catalog, 'bounded-test', 'gmial0', candidates, budget)).toBe('gmail');
    expect(computed).toBe(SUGGESTIONS_PER_DOCUMENT);
    // A fresh document has its own budget.
    expect(suggest(catalog, 'bounded-test', 'gmaill', candidates, suggestionBudget())).toBe('gmail');
    expect(computed).toBe(SUGGESTIONS_PER_DOCUMENT + 1);
  });

  it('unknown tools: the same budget per document', async () => {
    const catalog = await builtInCatalog();
    const tools = catalog.toolsOf('github').map((t) => t.slug);
    expect(tools.length).toBeGreaterThan(10);
    const wrong = misspelt(tools, SUGGESTIONS_PER_DOCUMENT + 40).map((s, i) => `${s}_${i}X`);
    const d = doc(`tools:\n  github: [${wrong.join(', ')}]\n`);
    const found = unknownTool.check(d, catalog, catalogSlugs(d.data));
    expect(found).toHaveLength(wrong.length);
    expect(found.filter((f) => f.hint?.startsWith('Did you mean')).length).toBeLessThanOrEqual(SUGGESTIONS_PER_DOCUMENT);
    expect(found.slice(SUGGESTIONS_PER_DOCUMENT).every((f) => f.hint?.startsWith('Check the slug'))).toBe(true);
  });
});

describe('a code frame on a long line reads a window of it', () => {
  const long = `toolkits: [${Array.from({ length: 70_000 }, (_, i) => `zq${i.toString(36)}`).join(',')}]`;

  it.each([
    ['at the start', 12],
    ['in the middle', Math.floor(long.length / 2)],
    ['at the end', long.length - 3],
  ])('%s: the lines framed are at most four screens wide, and the frame is the one the whole line gives', (_, col) => {
    const lines = ['name: big', 'user_id: u', long, ''];
    const range = { start: { line: 3, col }, end: { line: 3, col: col + 4 } };
    const cut = windowed(lines, range, 2, 100);
    for (let n = 1; n <= 3; n++) expect(cut.lines[n - 1]!.length).toBeLessThanOrEqual(400);
    // Same text as the whole line would give (no tab, no wide character before the window).
    const frame = codeFrame(lines, range);
    expect(frame.split('\n')[2]!.length).toBeLessThanOrEqual(110);
    expect(frame).toContain(long.slice(col - 1, col + 3));
    expect(codeFrame(splitLines(`name: big\nuser_id: u\n${long}\n`), range)).toBe(frame);
  });

  it('short lines are framed whole', () => {
    const lines = ['a: 1', `b: ${'x'.repeat(990)}`, 'c: 3'];
    const range = { start: { line: 2, col: 500 }, end: { line: 2, col: 501 } };
    expect(windowed(lines, range, 2, 100).lines).toBe(lines);
  });

  it('never starts the window inside a surrogate pair', () => {
    const line = '😀'.repeat(2000);
    const range = { start: { line: 1, col: 1202 }, end: { line: 1, col: 1204 } };
    const cut = windowed([line], range, 2, 100);
    expect(cut.lines[0]!.charCodeAt(0)).toBe(0xd83d);
    expect(codeFrame([line], range)).not.toContain('\uFFFD');
  });
});
