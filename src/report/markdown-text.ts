/** Text in GitHub-flavoured markdown tables: what the step summary's renderers share. */

/** Rows in the findings table; a step summary is for a glance, the full list is in the log. */
export const MARKDOWN_MAX_ROWS = 50;
/** Characters of a message shown in a cell (GitHub caps a step summary at 1 MiB). */
export const MAX_MESSAGE = 500;

/**
 * Escapes text for a table cell: `|` splits cells and a newline ends the row everywhere; outside
 * the message's own code spans, `<` and `&` would be read as HTML and `*`, `_`, `[`, `~` as markup.
 */
export function escapeCell(text: string): string {
  const spans = visibleControls(text).split('`');
  // An unpaired backtick opens no code span: escape it and treat the rest as plain text.
  const paired = spans.length % 2 === 1;
  return spans
    .map((part, i) =>
      paired && i % 2 === 1
        ? part
        : part
            .replace(/[\\*_[\]~]/g, (c) => `\\${c}`)
            .replace(/&/g, '&amp;')
            .replace(/</g, '&lt;')
            .replace(/>/g, '&gt;'),
    )
    .join(paired ? '`' : '\\`')
    .replace(/\|/g, '\\|')
    .replace(/\r\n?|\n/g, '<br>');
}


// Line breaks are handled by each caller (a `<br>`, a space); every other control character
// (an escape sequence from a hostile service or file) is shown, not passed on.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Control characters shown as `\uXXXX`, and `##[` (a workflow command to a CI runner that prints the file) as `##\[`. */
function visibleControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/##\[/g, '##\\[');
}

/** A code span in a table cell whose content may hold backticks, pipes, line breaks or control characters. */
export function code(text: string): string {
  const fence = text.includes('`') ? '`` ' : '`';
  // A line break would end the table row; in a code span it is only a space anyway.
  return `${fence}${visibleControls(text).replace(/\|/g, '\\|').replace(/\r\n?|\n/g, ' ')}${fence.split('').reverse().join('')}`;
}
