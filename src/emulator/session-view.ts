/** A stored session as each API version answers it, and its tools. */
import type { Catalog } from '../catalog/catalog.js';
import type { ApiVersion } from '../wire/json.js';
import type { SessionConfig } from '../wire/session.js';
import type { EmulatorState } from './context.js';
import { configWarnings } from './config-rules.js';
import { configView, metaToolsFor, type EffectiveConfig } from './effective.js';
import { toolAllowed } from './policy.js';
import type { SessionRecord } from './store.js';

/** `preload.tools: "all"` is capped at this many tools (api facts §3.1). */
export const PRELOAD_ALL_LIMIT = 1000;

/** The app tools a `"all"` preload stands for: every tool the config allows, in catalogue order, capped. */
export function preloadedAll(config: EffectiveConfig, catalog: Catalog): string[] {
  return catalog.tools.filter((t) => toolAllowed(config, t)).slice(0, PRELOAD_ALL_LIMIT).map((t) => t.slug);
}

/** `tool_router_tools` for a stored config: the meta tools, then the preloaded tools. */
export function toolRouterTools(config: EffectiveConfig, catalog: Catalog): string[] {
  return metaToolsFor(config, config.preload?.tools === 'all' ? preloadedAll(config, catalog) : undefined);
}

/** The session as create, retrieve, update and attach answer it. */
export function sessionBody(s: SessionRecord, state: EmulatorState, version: ApiVersion): Record<string, unknown> {
  const body: Record<string, unknown> = {
    session_id: s.id,
    mcp: { type: 'http', url: mcpUrl(state, s.id) },
    tool_router_tools: s.tool_router_tools,
    config: configOf(s, version),
    config_version: s.config_version,
  };
  // Only when there is one: answers without a warning stay as they were before warnings existed.
  const warnings = configWarnings(s.tool_router_tools);
  if (warnings.length > 0) body['warnings'] = warnings;
  if (s.experimental !== undefined) body['experimental'] = s.experimental;
  return body;
}

/** Each session's MCP endpoint on the emulator (the service's shape: `/tool_router/v3/{id}/mcp`). */
export function mcpUrl(state: EmulatorState, sessionId: string): string {
  return `${state.baseUrl}/tool_router/v3/${sessionId}/mcp`;
}

/** A stored config as `version` answers it (v3 lists a `"all"` preload as the session's app tools). */
export function configOf(s: Pick<SessionRecord, 'config' | 'tool_router_tools'>, version: ApiVersion): SessionConfig {
  return configView(s.config, version, s.tool_router_tools.filter((t) => !t.startsWith('COMPOSIO_')));
}
