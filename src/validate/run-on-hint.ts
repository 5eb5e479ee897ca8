import type { ManifestDocument } from '../manifest/types.js';

/**
 * A plain value that runs over several lines is almost always an indentation slip: a list item or
 * a key indented one space too far is not an entry of its own but more words of the value above
 * (`- github` then `   - gmail` is the one toolkit `github - gmail`). The schema then says the
 * value has the wrong pattern or choice; this hint says why it looks like that (in a flow list, a
 * missing comma does the same). Undefined for a value on one line, a quoted or block value
 * (written over lines on purpose), or no scalar.
 */
export function runOnHint(doc: ManifestDocument, pointer: string): string | undefined {
  const scalar = doc.scalar(pointer);
  if (scalar === undefined || scalar.style !== 'plain') return undefined;
  const lines = scalar.source.split(/\r?\n/);
  const next = lines.findIndex((line, i) => i > 0 && line.trim() !== '');
  if (next < 0) return undefined;
  const start = doc.locate(pointer).start.line;
  const shown = lines[next]!.trim();
  const quoted = shown.length > 40 ? `${shown.slice(0, 37)}...` : shown;
  // In `[...]` and `{...}` lines do not part entries, commas do. The lines between are blank, so
  // the comma goes after the value's first line.
  if (scalar.inFlow === true) return `\`${quoted}\` on line ${start + next} is read as more of this value: in \`[...]\` and \`{...}\` entries are parted by commas, not by lines; a comma is probably missing at the end of line ${start}.`;
  return `\`${quoted}\` on line ${start + next} is indented more than line ${start}, so it is read as more of this value, not as an entry of its own; if it is one, line it up with the entry on line ${start}.`;
}
