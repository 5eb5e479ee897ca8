import type { CodeLens } from 'vscode-languageserver/node';
import { parseManifestText } from '../manifest/parse.js';
import { isPerUser } from '../manifest/per-user.js';
import { loadProjectConfig } from '../project/load.js';
import { stateBackend } from '../state/backend.js';
import { DEFAULT_STATE_PATH } from '../state/file-store.js';
import type { StateView } from '../state/store.js';
import { groupOf } from './projects.js';
import { toLspRange } from './to-lsp.js';

export interface DeployedContext {
  folders: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * What is deployed for each manifest of a file, as code lenses above each document, read from the
 * project's state (`SESSIONCTL_STATE`, else `state:` of sessionctl.yaml, else the default file),
 * without a lock and never written: the recorded session (id, config version, applied when), and
 * for a per-user manifest its published version and how many sessions it has. Nothing is asked
 * of the service: drift is `sessionctl diff`'s, on request. No state there: no lenses.
 */
export async function deployedLenses(file: string, text: string, context: DeployedContext): Promise<CodeLens[]> {
  const group = groupOf(file, context.folders);
  const loaded = await loadProjectConfig({ cwd: group.root, env: context.env, file: group.projectFile ?? false });
  const spec = context.env['SESSIONCTL_STATE'] ?? loaded.config?.state ?? DEFAULT_STATE_PATH;
  const backend = stateBackend(spec, group.root, { env: context.env });
  if (!(await backend.probe()).exists) return [];
  const view = await backend.load();
  const parsed = parseManifestText(text, file, { env: context.env, unsetVariables: 'placeholder' });
  return parsed.documents.map((doc) => {
    const start = toLspRange(doc.locate('')).start;
    return { range: { start, end: start }, command: { title: lensTitle(view, doc.name, doc.data), command: '' } };
  });
}

function lensTitle(view: StateView, name: string, data: unknown): string {
  if (isPerUser(data)) {
    const published = view.published?.get(name);
    if (published === undefined) return `sessionctl: ${name} is not published`;
    const count = view.fleet?.get(name)?.sessions ?? 0;
    return `sessionctl: published v${published.version} · ${count} ${count === 1 ? 'session' : 'sessions'}`;
  }
  const userId = (data as { user_id?: unknown } | null)?.user_id;
  const entry = typeof userId === 'string' ? view.get(name, userId) : undefined;
  if (entry === undefined || entry.session_id === '') return `sessionctl: ${name} has no session recorded in ${view.location}`;
  const version = entry.config_version === null ? '' : ` · config v${entry.config_version}`;
  return `sessionctl: deployed ${entry.session_id}${version} · applied ${entry.applied_at}`;
}

