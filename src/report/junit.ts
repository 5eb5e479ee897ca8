import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { displayPath } from './paths.js';
import { location } from './text.js';
import { toolName } from './tool.js';
import type { ReportContext, Reporter } from './types.js';

// XML 1.0 cannot carry most control characters even as references; they become U+FFFD.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Escapes element text. */
export function xmlText(text: string): string {
  // A CI log that prints the file must not meet a carriage return (it rewrites the line), a line
  // that starts with `::` or a `##[` (workflow commands): `&#13;`, `&#58;` and `#&#35;[` are the
  // same text to XML.
  return text
    .replace(INVALID_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;')
    .replace(/(^|\n)([ \t]*):/g, '$1$2&#58;')
    .replace(/##\[/g, '#&#35;[');
}

/** Escapes an attribute value; line breaks and tabs are kept as references so parsers do not fold them. */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** The suite of diagnostics that belong to no file (a glob that matched nothing). */
const RUN_SUITE = '(run)';

function details(d: Diagnostic, ctx: ReportContext): string {
  const where = location(d.file, d.range, ctx);
  const lines = [`${where === undefined ? '' : `${where}: `}${d.severity}: ${d.message} [${d.code}]`];
  if (d.hint !== undefined) lines.push(`hint: ${d.hint}`);
  for (const r of d.related ?? []) {
    const relWhere = location(r.file ?? d.file, r.range, ctx);
    lines.push(`related: ${relWhere === undefined ? '' : `${relWhere}: `}${r.message}`);
  }
  return lines.join('\n');
}

function testcase(d: Diagnostic, suite: string, ctx: ReportContext): string[] {
  const at = d.range === undefined ? '' : ` at ${d.range.start.line}:${d.range.start.col}`;
  const open = `    <testcase classname="${xmlAttr(suite)}" name="${xmlAttr(`${d.code}${at}`)}">`;
  const body = xmlText(details(d, ctx));
  // Only errors fail; warnings and info are kept visible in the test's output.
  const inner =
    d.severity === 'error'
      ? `      <failure type="${xmlAttr(d.code)}" message="${xmlAttr(d.message)}">${body}</failure>`
      : `      <system-out>${body}</system-out>`;
  return [open, inner, '    </testcase>'];
}

/**
 * JUnit XML for CI test views: a testsuite per file, a testcase per finding (failing for errors),
 * and one passing testcase for a file with no findings.
 */
export const junit: Reporter = {
  name: 'junit',
  render(report, ctx) {
    const bySuite = new Map<string, Diagnostic[]>();
    const suiteOf = (file: string | undefined): string => (file === undefined ? RUN_SUITE : displayPath(file, ctx.cwd));
    if (report.diagnostics.some((d) => d.file === undefined)) bySuite.set(RUN_SUITE, []);
    for (const f of report.files) bySuite.set(suiteOf(f), []);
    for (const d of report.diagnostics) {
      const name = suiteOf(d.file);
      const list = bySuite.get(name) ?? [];
      list.push(d);
      bySuite.set(name, list);
    }

    const suites: string[] = [];
    let tests = 0;
    let failures = 0;
    for (const [name, list] of bySuite) {
      const cases = list.length === 0 ? 1 : list.length;
      const failed = list.filter((d) => d.severity === 'error').length;
      tests += cases;
      failures += failed;
      suites.push(`  <testsuite name="${xmlAttr(name)}" tests="${cases}" failures="${failed}" errors="0" skipped="0">`);
      if (list.length === 0) suites.push(`    <testcase classname="${xmlAttr(name)}" name="no problems"/>`);
      for (const d of list) suites.push(...testcase(d, name, ctx));
      suites.push('  </testsuite>');
    }
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="${xmlAttr(`${toolName} ${report.command}`)}" tests="${tests}" failures="${failures}" errors="0">`,
      ...suites,
      '</testsuites>',
      '',
    ].join('\n');
  },
};
