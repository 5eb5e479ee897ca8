/**
 * Which toolkits and tools a session's effective config lets through (api facts §3.2, §3.4):
 * the allowlist or denylist of toolkits; per toolkit, an enable or disable list of tools, or a tag
 * filter that overrides the global `tags`; a tag filter passes a tool that has at least one enabled
 * tag (when any are listed) and none of the disabled ones.
 */
import type { CatalogTool } from '../catalog/types.js';
import type { SessionConfig, TagFilter } from '../wire/session.js';

export function toolkitAllowed(config: SessionConfig, toolkit: string): boolean {
  const tk = config.toolkits;
  if (tk === undefined) return true;
  return 'enabled' in tk ? tk.enabled.includes(toolkit) : !tk.disabled.includes(toolkit);
}

function tagsPass(filter: TagFilter | undefined, tags: readonly string[]): boolean {
  if (filter === undefined) return true;
  if (filter.enabled !== undefined && filter.enabled.length > 0 && !filter.enabled.some((t) => tags.includes(t))) return false;
  if (filter.disabled !== undefined && filter.disabled.some((t) => tags.includes(t))) return false;
  return true;
}

export function toolAllowed(config: SessionConfig, tool: CatalogTool): boolean {
  if (!toolkitAllowed(config, tool.toolkit)) return false;
  const f = config.tools?.[tool.toolkit];
  if (f !== undefined) {
    if ('enabled' in f) return f.enabled.includes(tool.slug);
    if ('disabled' in f) return !f.disabled.includes(tool.slug);
    return tagsPass(f.tags, tool.tags);
  }
  return tagsPass(config.tags, tool.tags);
}
