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
  const spans = text.split('`');
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

