import type { ManifestDocument } from '../../manifest/types.js';
import { finding, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * `workbench.enable_proxy_execution: true` with `workbench.enable: false`: proxy execution runs
 * inside the workbench, so it has no effect, and the manifest says two contradictory things.
 */
export const proxyWithoutWorkbench: DocumentRule = {
  code: 'rule/proxy-without-workbench',
  check(doc: ManifestDocument) {
    const workbench = asPlainObject(asPlainObject(doc.data)?.['workbench']);
    if (workbench?.['enable'] !== false || workbench['enable_proxy_execution'] !== true) return [];
    return [
      finding(
        doc,
        this.code,
        '/workbench/enable_proxy_execution',
        '`workbench.enable_proxy_execution` is true but the workbench is off, so proxy execution has no effect',
        'Remove `enable_proxy_execution`, or turn the workbench on with `workbench.enable: true`.',
        { key: true, related: [{ pointer: '/workbench/enable', message: 'the workbench is turned off here' }] },
      ),
    ];
  },
};
