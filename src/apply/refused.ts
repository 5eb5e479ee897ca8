import { mayHaveTakenEffect, type ApiError } from '../client/errors.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { PlanItem } from '../plan/plan.js';

/**
 * A refused create or update (or an update of unknown outcome), located at the key the service names when it names one (`Error in
 * payload.workbench: ...`), else at the manifest's name.
 */
export function refused(item: PlanItem, err: ApiError, verb: 'create' | 'update'): Diagnostic {
  const status = [err.status !== undefined ? `HTTP ${err.status}` : err.kind, err.slug].filter((p) => p !== undefined).join(' ');
  const details = (err.errors ?? []).join('; ');
  const code = verb === 'create' ? 'apply/create-failed' : 'apply/update-failed';
  // An update that may have landed is not called refused: the next run reads the session and sees.
  const what = mayHaveTakenEffect(err) ? 'sent, its outcome is unknown' : 'refused';
  const message = `${item.name}: ${verb} ${what} (${status}): ${err.message}${details !== '' ? `: ${details}` : ''}`;
  const path = /payload\.([A-Za-z0-9_.]+)/.exec(details)?.[1];
  // "Unrecognized key: 'sandbox_size'" names the key below that path.
  const key = /Unrecognized key:? '([A-Za-z0-9_]+)'/.exec(details)?.[1];
  const named = path === undefined ? undefined : key === undefined ? path : `${path}.${key}`;
  const d: Diagnostic =
    named === undefined
      ? atDocument(item.doc, code, 'error', message)
      : (() => {
          const pointer = '/' + named.split('.').join('/');
          return { code, severity: 'error', message, file: item.doc.file, pointer, range: item.doc.locate(pointer, { key: true }) };
        })();
  const hint = [err.suggested_fix, err.request_id !== undefined ? `request id ${err.request_id}` : undefined].filter((p) => p !== undefined).join('; ');
  if (hint !== '') d.hint = hint;
  return d;
}

