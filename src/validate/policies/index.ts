import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { pathMatcher, relativePath, type PathMatcher } from '../path-globs.js';
import { allowedToolkits } from './kinds/allowed-toolkits.js';
import { deniedToolkits } from './kinds/denied-toolkits.js';
import { deniedTools } from './kinds/denied-tools.js';
import { forbiddenKeys } from './kinds/forbidden-keys.js';
import { forbiddenTags } from './kinds/forbidden-tags.js';
import { maxPreloadedTools } from './kinds/max-preloaded-tools.js';
import { maxToolkits } from './kinds/max-toolkits.js';
import { authConfigPattern, userIdPattern } from './kinds/patterns.js';
import { requiredTags } from './kinds/required-tags.js';
import { requiredValues } from './kinds/required-values.js';
import type { PolicyKind, PolicySpec } from './types.js';

/** Every kind of policy condition, in the order docs/policies.md lists them. */
export const policyKinds: readonly PolicyKind[] = [
  allowedToolkits,
  deniedToolkits,
  maxToolkits,
  deniedTools,
  maxPreloadedTools,
  requiredTags,
  forbiddenTags,
  requiredValues,
  forbiddenKeys,
  userIdPattern,
  authConfigPattern,
];

const byName = new Map(policyKinds.map((k) => [k.name, k]));

export function policyKind(name: string): PolicyKind | undefined {
  return byName.get(name);
}

/** The policies of a project, ready to check documents: each with its kind and file matcher. */
export class PolicySet {
  private readonly entries: Array<{ spec: PolicySpec; kind: PolicyKind; files?: PathMatcher }>;

  /** `dir` is the folder `files` globs are relative to (the folder of `sessionctl.yaml`). */
  constructor(
    policies: readonly PolicySpec[],
    private readonly dir: string,
  ) {
    this.entries = policies.flatMap((spec) => {
      const kind = byName.get(spec.kind);
      // The config loader refuses unknown kinds; a hand-built spec with one checks nothing.
      if (kind === undefined) return [];
      return [{ spec, kind, ...(spec.files === undefined ? {} : { files: pathMatcher(spec.files) }) }];
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /** The findings of every policy that applies to the document's file, each at its place, code `policy/<id>`. */
  check(doc: ManifestDocument): Diagnostic[] {
    const out: Diagnostic[] = [];
    // Made once per document, and only when a policy names files.
    let rel: string | undefined | null = null;
    for (const { spec, kind, files } of this.entries) {
      if (files !== undefined) {
        if (rel === null) rel = relativePath(this.dir, doc.file);
        if (rel === undefined || !files(rel)) continue;
      }
      for (const v of kind.check(doc, spec.value)) {
        let range = doc.locate(v.pointer, { key: v.key });
        if (v.point === true) range = { start: range.start, end: range.start };
        const d: Diagnostic = {
          code: `policy/${spec.id}`,
          severity: spec.severity,
          message: `${spec.message}: ${v.detail}`,
          file: doc.file,
          pointer: v.pointer,
          range,
          hint: spec.hint ?? v.hint,
        };
        out.push(d);
      }
    }
    return out;
  }
}

export type { PolicySpec, PolicyKind };
