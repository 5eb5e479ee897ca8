/**
 * Inline YAML for tests: strips the common indentation of a template literal and its first and
 * last blank lines, so cases read like the files they stand for.
 */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = strings.reduce((acc, s, i) => acc + s + (i < values.length ? String(values[i]) : ''), '');
  const lines = raw.replace(/^\n/, '').replace(/\n[ ]*$/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return `${lines.map((l) => l.slice(indent)).join('\n')}\n`;
}
