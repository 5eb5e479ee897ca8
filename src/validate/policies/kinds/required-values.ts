import type { ManifestDocument } from '../../../manifest/types.js';
import { dottedPath } from '../../pointer.js';
import { dottedPointer, lookupPath, placeOf } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';
import { scalar } from '../words.js';

/**
 * Keys that must be declared with exactly these values (`workbench.enable: false`). A key left out
 * is a violation too: the service default then applies, and a policy is about what the manifest
 * states, so that a change of default cannot turn a compliant manifest into another session.
 */
export const requiredValues: PolicyKind = {
  name: 'required_values',
  example: {
    policy: 'id: no-proxy-execution\nmessage: Workbench code never calls APIs with user credentials\nrequired_values:\n  workbench.enable_proxy_execution: false',
    manifest: 'name: analyst\nuser_id: u-1\nworkbench:\n  enable: true\n  enable_proxy_execution: true',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const out: Violation[] = [];
    for (const [path, wanted] of Object.entries(value as Record<string, unknown>)) {
      const found = lookupPath(doc.data, path);
      if (found.declared && found.value === wanted) continue;
      const pointer = dottedPointer(path);
      const where = `\`${dottedPath(pointer)}\``;
      if (!found.declared) {
        out.push({ ...placeOf(doc.data, pointer), detail: `${where} is not set (the service default applies); it must be ${scalar(wanted)}`, hint: `Declare ${where}: ${JSON.stringify(wanted)}.` });
        continue;
      }
      const actual = found.value;
      // A value that came from the environment is not repeated: it may be a secret.
      const fromEnv = doc.scalar(pointer)?.source.includes('${') === true;
      out.push({
        pointer,
        key: true,
        detail: `${where} is ${fromEnv ? 'set from the environment to another value' : scalar(actual)}; it must be ${scalar(wanted)}`,
        hint: `Set ${where} to ${JSON.stringify(wanted)}.`,
      });
    }
    return out;
  },
};
