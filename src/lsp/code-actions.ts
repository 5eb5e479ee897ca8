import { CodeActionKind, type CodeAction, type Diagnostic as LspDiagnostic } from 'vscode-languageserver/node';
import { isLockedCode, type Code } from '../diagnostics/codes.js';
import { toLspRange, type FindingData } from './to-lsp.js';

/** The reason a new suppression comment carries until someone writes the real one. */
export const PLACEHOLDER_REASON = 'say why this is fine here';

/**
 * The quick fixes for the findings at a place: the edit each finding's fix names (a
 * did-you-mean, quoting a value), and a suppression comment on the line above with a placeholder
 * reason for any finding a comment may silence.
 */
export function codeActions(uri: string, text: string, diagnostics: readonly LspDiagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  const lines = text.split(/\r?\n/);
  for (const d of diagnostics) {
    if (d.source !== 'sessionctl') continue;
    const data = (d.data ?? {}) as FindingData;
    if (data.fix !== undefined) {
      const edits = data.fix.edits.map((e) => ({ range: toLspRange(e.range), newText: e.text }));
      out.push({ title: data.fix.title, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [uri]: edits } } });
    }
    const code = String(d.code);
    if (!suppressible(code)) continue;
    const line = d.range.start.line;
    const indent = /^\s*/.exec(lines[line] ?? '')![0];
    out.push({
      title: `Suppress ${code} here, with a reason`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      edit: { changes: { [uri]: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${indent}# sessionctl-ignore ${code}: ${PLACEHOLDER_REASON}\n` }] } },
    });
  }
  return out;
}

/** A comment may silence this code: not a finding about reading the file, the project or the comments themselves. */
function suppressible(code: string): boolean {
  return code.startsWith('policy/') || (!code.startsWith('suppression/') && !isLockedCode(code as Code));
}
