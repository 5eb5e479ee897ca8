import { excerpt } from '../diagnostics/excerpt.js';
import type { YAMLError } from 'yaml';
import type { Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceText } from './source.js';

/** yaml's own codes that have a code of ours; every other one is `yaml/syntax`, naming yaml's code. */
const mapped: Partial<Record<YAMLError['code'], { code: Code; hint?: string }>> = {
  DUPLICATE_KEY: { code: 'yaml/duplicate-key' },
  TAB_AS_INDENT: { code: 'yaml/tab-indent', hint: 'indent with spaces; YAML forbids tabs in indentation' },
  TAG_RESOLVE_FAILED: { code: 'yaml/unknown-tag', hint: 'remove the tag; manifests use plain YAML values only' },
  NON_STRING_KEY: { code: 'yaml/non-string-key', hint: 'keys are plain strings; quote the key or restructure the value' },
  BAD_DIRECTIVE: { code: 'yaml/directive' },
  RESOURCE_EXHAUSTION: { code: 'input/too-deep' },
};

const severities: Record<string, Diagnostic['severity']> = {
  'yaml/duplicate-key': 'error',
  'yaml/tab-indent': 'error',
  'yaml/unknown-tag': 'error',
  'yaml/non-string-key': 'error',
  'yaml/directive': 'warning',
  'input/too-deep': 'error',
};

/**
 * One of yaml's errors or warnings as a located diagnostic. yaml's warnings are findings too:
 * an unknown tag (`!!js/function`) is only a warning there, but nothing here loads code, so a tag
 * we do not know is an error (runtime-facts §1.2).
 */
export function yamlDiagnostic(error: YAMLError, source: SourceText, file: string): Diagnostic {
  const known = mapped[error.code];
  const code: Code = known?.code ?? 'yaml/syntax';
  const severity = known !== undefined ? (severities[code] ?? 'error') : error.name === 'YAMLWarning' ? 'warning' : 'error';
  // yaml's messages may quote the source (a tag, a key): cap what they quote.
  const message = excerpt(firstLine(error.message), 200);
  const diagnostic: Diagnostic = {
    code,
    severity,
    message: known === undefined ? `${message} (yaml ${error.code})` : message,
    file,
    range: source.range(error.pos[0], error.pos[1]),
  };
  if (known?.hint !== undefined) diagnostic.hint = known.hint;
  return diagnostic;
}

/** yaml's message without the code frame that `prettyErrors` would append (we render our own). */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}
