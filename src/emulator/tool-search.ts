/**
 * Ranked keyword search over the tools a session allows (api facts §2.9). Deterministic: words of the
 * use case (lower-cased, a plural `s` dropped, stop words out) score against the tool's slug words
 * (3), name words (2) and toolkit slug/name (2); ties go to the slug in alphabetical order. The top 3
 * with a score of at least half the best are the primary tools, the next 5 the related ones.
 */
import type { CatalogTool } from '../catalog/types.js';
import type { EmulatorState } from './context.js';
import { toolAllowed, toolkitAllowed } from './policy.js';
import type { SessionRecord } from './store.js';

const STOP = new Set(['a', 'an', 'the', 'to', 'for', 'of', 'in', 'on', 'and', 'or', 'my', 'me', 'i', 'with', 'from', 'all', 'by', 'is', 'it', 'at', 'as', 'some', 'please']);

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !STOP.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

export interface Ranked {
  tool: CatalogTool;
  score: number;
}

/**
 * The catalogue's tools the session allows, then `custom` (custom tools with their final slugs, in
 * the catalogue's shape): a custom toolkit's tools and standalone tools always, a tool extending a
 * toolkit when the session allows that toolkit.
 */
export function rankTools(useCase: string, session: SessionRecord, state: EmulatorState, custom: readonly CatalogTool[] = []): Ranked[] {
  const query = new Set(words(useCase));
  if (query.size === 0) return [];
  const ranked: Ranked[] = [];
  const candidates = (function* (): Generator<CatalogTool> {
    for (const tool of state.catalog.tools) if (toolAllowed(session.config, tool)) yield tool;
    for (const tool of custom) if (state.catalog.toolkit(tool.toolkit) === undefined || toolkitAllowed(session.config, tool.toolkit)) yield tool;
  })();
  for (const tool of candidates) {
    const slugWords = new Set(words(tool.slug));
    const nameWords = new Set(words(tool.name));
    const toolkitName = state.catalog.toolkit(tool.toolkit)?.name ?? tool.toolkit;
    const toolkitWords = new Set([...words(tool.toolkit), ...words(toolkitName), tool.toolkit.toLowerCase()]);
    let score = 0;
    for (const w of query) {
      if (slugWords.has(w)) score += 3;
      if (nameWords.has(w)) score += 2;
      if (toolkitWords.has(w)) score += 2;
    }
    if (score > 0) ranked.push({ tool, score });
  }
  return ranked.sort((a, b) => b.score - a.score || (a.tool.slug < b.tool.slug ? -1 : 1));
}

export function primaryAndRelated(ranked: readonly Ranked[]): { primary: CatalogTool[]; related: CatalogTool[] } {
  const best = ranked[0]?.score ?? 0;
  const primary = ranked.filter((r) => r.score * 2 >= best).slice(0, 3).map((r) => r.tool);
  const related = ranked.filter((r) => !primary.includes(r.tool)).slice(0, 5).map((r) => r.tool);
  return { primary, related };
}
