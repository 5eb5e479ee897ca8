import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { KEYWORDS } from '../catalog-slugs.js';
import { joinPointer } from '../../util/json-pointer.js';
import { finding, has, stringList, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

const sections = ['tools', 'auth_configs', 'connected_accounts'] as const;

/**
 * `tools`, `auth_configs` or `connected_accounts` naming a toolkit that `toolkits` leaves out:
 * not in the allowlist, or in the denylist. The setting can never take effect, which is almost
 * always a forgotten edit. With both lists set the conflict rule speaks instead.
 */
export const toolkitNotEnabled: DocumentRule = {
  code: 'rule/toolkit-not-enabled',
  check(doc: ManifestDocument) {
    const data = asPlainObject(doc.data);
    if (data === undefined || !has(data, 'toolkits')) return [];
    const raw = data['toolkits'];
    const obj = asPlainObject(raw);
    let allow: string[] | undefined;
    let deny: string[] | undefined;
    let listPointer: string;
    if (Array.isArray(raw)) {
      allow = stringList(raw);
      listPointer = '/toolkits';
    } else if (obj !== undefined && has(obj, 'enable') && !has(obj, 'disable')) {
      allow = stringList(obj['enable']);
      listPointer = '/toolkits/enable';
    } else if (obj !== undefined && has(obj, 'disable') && !has(obj, 'enable')) {
      deny = stringList(obj['disable']);
      listPointer = '/toolkits/disable';
    } else {
      return [];
    }
    if (allow === undefined && deny === undefined) return [];
    const out: Diagnostic[] = [];
    for (const section of sections) {
      const entries = asPlainObject(data[section]);
      if (entries === undefined) continue;
      for (const toolkit of Object.keys(entries)) {
        // `tools.enable` is a misplaced keyword, not a toolkit: rule/misplaced-key says what was meant.
        if (KEYWORDS.has(toolkit)) continue;
        const pointer = joinPointer(`/${section}`, toolkit);
        if (allow !== undefined && !allow.includes(toolkit)) {
          out.push(
            finding(
              doc,
              this.code,
              pointer,
              `\`${section}.${toolkit}\` configures toolkit \`${toolkit}\`, which the allowlist \`toolkits\` does not enable`,
              `Add \`${toolkit}\` to the allowlist, or remove \`${section}.${toolkit}\`.`,
              { key: true, related: [{ pointer: listPointer, message: 'the allowlist' }] },
            ),
          );
        } else if (deny !== undefined && deny.includes(toolkit)) {
          const index = deny.indexOf(toolkit);
          out.push(
            finding(
              doc,
              this.code,
              pointer,
              `\`${section}.${toolkit}\` configures toolkit \`${toolkit}\`, which the denylist \`toolkits.disable\` removes`,
              `Remove \`${toolkit}\` from \`toolkits.disable\`, or remove \`${section}.${toolkit}\`.`,
              { key: true, related: [{ pointer: joinPointer(listPointer, index), message: `\`${toolkit}\` is disabled here` }] },
            ),
          );
        }
      }
    }
    return out;
  },
};
