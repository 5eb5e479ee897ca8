import type { ApiError } from '../client/errors.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { PlanItem } from '../plan/plan.js';

/**
 * A refused create, located at the key the service names when it names one (`Error in
 * payload.workbench: ...`), else at the manifest's name.
 */
export function createFailed(item: PlanItem, err: ApiError): Diagnostic {
  const status = [err.status !== undefined ? `HTTP ${err.status}` : err.kind, err.slug].filter((p) => p !== undefined).join(' ');
  const details = (err.errors ?? []).join('; ');
  const message = `${item.name}: create refused (${status}): ${err.message}${details !== '' ? `: ${details}` : ''}`;
  const path = /payload\.([A-Za-z0-9_.]+)/.exec(details)?.[1];
  // "Unrecognized key: 'sandbox_size'" names the key below that path.
  const key = /Unrecognized key:? '([A-Za-z0-9_]+)'/.exec(details)?.[1];
  const named = path === undefined ? undefined : key === undefined ? path : `${path}.${key}`;
  const d: Diagnostic =
    named === undefined
      ? atDocument(item.doc, 'apply/create-failed', 'error', message)
      : (() => {
          const pointer = '/' + named.split('.').join('/');
          return { code: 'apply/create-failed', severity: 'error', message, file: item.doc.file, pointer, range: item.doc.locate(pointer, { key: true }) };
        })();
  const hint = [err.suggested_fix, err.request_id !== undefined ? `request id ${err.request_id}` : undefined].filter((p) => p !== undefined).join('; ');
  if (hint !== '') d.hint = hint;
  return d;
}

