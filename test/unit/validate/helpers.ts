import { parseManifestText } from '../../../src/manifest/parse.js';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';

/** Removes the common indentation of a template literal, so inline YAML reads naturally. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

/** The documents of inline YAML, parsed for real by the project's loader. */
export function docs(yaml: string, file = '/work/m.yaml', env: Record<string, string> = {}): ManifestDocument[] {
  const parsed = parseManifestText(dedent(yaml), file, { env });
  if (parsed.diagnostics.some((d) => d.severity === 'error')) {
    throw new Error(`fixture does not load: ${parsed.diagnostics.map((d) => d.message).join('; ')}`);
  }
  return parsed.documents;
}

export function doc(yaml: string, file?: string, env?: Record<string, string>): ManifestDocument {
  const all = docs(yaml, file, env);
  if (all.length !== 1) throw new Error(`expected one document, got ${all.length}`);
  return all[0]!;
}

/** `code@line:col` for each diagnostic, the form the tables below assert. */
export function where(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code}@${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`);
}
