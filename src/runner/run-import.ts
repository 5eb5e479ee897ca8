import { bindingFor, checkBinding, needsBinding } from '../state/binding.js';
import { relative, sep } from 'node:path';
import { expectedConfig } from '../config/expected.js';
import { bodyHash, requestBody } from '../config/request.js';
import { recordedUserId, storedBody } from '../config/sensitive-fields.js';
import type { ManifestData } from '../config/types.js';
import { verifySession } from '../config/verify.js';
import { UsageError } from '../diagnostics/errors.js';
import { atDocument } from '../manifest/at-document.js';
import type { StateEntry } from '../state/entry.js';
import { hasSession, storableVersion } from '../state/entry.js';
import type { StateLockOptions } from '../state/file-lock.js';
import type { Connect } from './connection.js';
import { loadAndValidate } from './inputs.js';
import { makeReport, maskReport, outcomeOf, type RunBase, type RunOutcome } from './outcome.js';

export interface ImportRunOptions extends RunBase {
  connect: Connect;
  lock: StateLockOptions;
  /** Differences the manifest does not declare (`added`) count as drift. */
  strict?: boolean;
  now?: () => Date;
}

export interface ImportRun extends RunOutcome {
  /** The entry recorded, when the session was adopted. */
  imported?: StateEntry;
}

/**
 * `import NAME SESSION_ID`: adopts a session that exists already (one created by hand, or whose
 * create's outcome was unknown) into the state under the manifest named NAME among `paths`. The
 * session is read and checked against the manifest; any difference is reported as drift and the
 * next plan repairs it. A session of another user, or a name the state already records with
 * another session, is refused.
 */
export async function runImport(name: string, sessionId: string, paths: readonly string[], options: ImportRunOptions): Promise<ImportRun> {
  const inputs = await loadAndValidate(paths, options);
  const docs = inputs.documents.filter((d) => d.name === name);
  if (docs.length === 0) {
    const known = [...new Set(inputs.documents.map((d) => d.name))];
    throw new UsageError(`no manifest named "${name}" in ${paths.join(', ')}`, known.length > 0 ? `manifests there: ${known.slice(0, 20).join(', ')}` : 'pass the folder or file that declares it');
  }
  const doc = docs[0]!;
  // Only the imported manifest's own findings count; other files of the paths are not this command's business.
  const own = { ...inputs, diagnostics: inputs.diagnostics.filter((d) => d.file === doc.file), suppressed: inputs.suppressed.filter((d) => d.file === doc.file), files: [doc.file], documents: [doc] };
  if (own.diagnostics.some((d) => d.severity === 'error')) return maskReport(outcomeOf('import', own), inputs.masker, false);
  await options.guard?.();
  const data = doc.data as ManifestData;
  const userId = String(data.user_id);
  // What the state keeps: sensitive values (a `${USER_TOKEN}` user id too) in their stored forms.
  const recordedUser = recordedUserId(doc);

  const api = await options.connect();
  try {
    const live = await api.getSession(sessionId);
    const liveUser = (live.config as { user_id?: unknown } | undefined)?.user_id;
    if (typeof liveUser === 'string' && liveUser !== userId) {
      const d = atDocument(doc, 'state/import-refused', 'error', `${name}: session ${sessionId} acts for user ${JSON.stringify(liveUser)}, the manifest declares ${JSON.stringify(userId)}; it was not imported`);
      d.hint = 'import it under the manifest (or the USER_ID) it was created for';
      return maskReport(outcomeOf('import', own, [d]), inputs.masker, false);
    }
    const expected = expectedConfig(data);
    const check = verifySession(doc, expected, live, { strict: options.strict === true });
    const state = await options.state.openLocked(options.lock);
    try {
      if (options.service !== undefined) checkBinding(state.binding, options.service, state.location);
      const existing = state.get(name, recordedUser);
      if (existing !== undefined && hasSession(existing) && existing.session_id !== sessionId) {
        throw new UsageError(
          `the state already records session ${existing.session_id} for ${name} (user ${JSON.stringify(inputs.masker.text(userId))})`,
          `forget it first with \`sessionctl state rm ${name}\` (the session stays alive), or delete it with \`sessionctl destroy\``,
        );
      }
      const body = storedBody(requestBody(data), doc);
      const inSync = check.status === 'in-sync';
      const entry: StateEntry = {
        name,
        user_id: recordedUser,
        session_id: live.session_id,
        mcp_url: inputs.masker.text(live.mcp.url),
        tool_router_tools: [...live.tool_router_tools],
        config_version: storableVersion(live.config_version),
        // In sync, the manifest's body is what the session holds; drifted, nothing is known to be, so the next plan updates every field.
        body_hash: inSync ? bodyHash(body) : '',
        body: inSync ? (body as unknown as StateEntry['body']) : null,
        applied_at: (options.now ?? (() => new Date()))().toISOString(),
        ...(doc.file.startsWith('<') ? {} : { file: relative(options.cwd, doc.file).split(sep).join('/') }),
        ...(existing?.superseded !== undefined ? { superseded: existing.superseded } : {}),
      };
      // The session answered with this run's key: the state is bound to where it lives.
      if (options.service !== undefined && needsBinding(state.binding, options.service)) await state.bind(bindingFor(options.service, (options.now ?? (() => new Date()))()));
      await state.record(entry);
      const report = makeReport('import', own, check.diagnostics);
      report.drift = { items: [{ name, file: doc.file, user_id: recordedUser, session_id: live.session_id, status: check.status, differences: check.differences, diff: check.diff }] };
      return maskReport({ report, sources: own.sources, secrets: own.secrets, imported: entry }, inputs.masker, false);
    } finally {
      await state.unlock();
    }
  } finally {
    await api.close();
  }
}
