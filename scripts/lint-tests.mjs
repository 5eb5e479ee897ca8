// The suite's own lint (docs/testing.md): patterns that let a test pass without checking anything,
// or that leak out of it. Runs over test/**/*.ts with TypeScript's parser; part of `npm test`.
//
// Usage: node scripts/lint-tests.mjs [files...]   (default: every .ts file under test/)
// Exit 0 when clean, 1 with one line per finding: file:line:col rule: message.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Functions that declare tests or suites; `.each`, `.concurrent` and the like chain after them. */
const TEST_FUNCTIONS = new Set(['it', 'test', 'describe', 'suite', 'bench']);
/** Only these files may make temp folders: everything else goes through tempDir(). */
const TEMP_DIR_OWNERS = new Set(['test/helpers/temp-dir.ts', 'test/helpers/global-setup.ts']);
/** Folders of this machine that a clone does not have. */
const MACHINE_PATH = /^(\/work\/(shared|main|wt-)|\/home\/|\/Users\/|\/root\/|\/tmp\/|\/var\/folders\/|\/private\/var\/|[A-Za-z]:\\)/;

/** The name at the root of a call chain: `it` in `it.each(...)('x', fn)` or `test.skipIf(c)`. */
function rootName(expr) {
  let e = expr;
  for (;;) {
    if (ts.isCallExpression(e)) e = e.expression;
    else if (ts.isPropertyAccessExpression(e)) e = e.expression;
    else break;
  }
  return ts.isIdentifier(e) ? e.text : undefined;
}

const isTestCall = (node) => ts.isCallExpression(node) && TEST_FUNCTIONS.has(rootName(node.expression) ?? '');

function calls(node, object, method) {
  return (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    ts.isIdentifier(node.expression.expression) &&
    node.expression.expression.text === object &&
    node.expression.name.text === method
  );
}

const isFunction = (n) => ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n);

/** `return` statements of a test's own body that sit under an `if`: the test stops, silently. */
function silentReturns(fn) {
  const found = [];
  const visit = (node, underIf) => {
    if (node !== fn && isFunction(node)) return;
    if (ts.isReturnStatement(node) && underIf) found.push(node);
    ts.forEachChild(node, (child) => visit(child, underIf || ts.isIfStatement(node)));
  };
  visit(fn, false);
  return found;
}

/** Lints one file's text; `file` is its path relative to the repository, with forward slashes. */
export function lintText(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings = [];
  const report = (node, rule, message) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push({ file, line: line + 1, col: character + 1, rule, message });
  };

  const visit = (node, insideTry) => {
    if (ts.isPropertyAccessExpression(node) && TEST_FUNCTIONS.has(rootName(node) ?? '')) {
      const name = node.name.text;
      if (name === 'only') report(node.name, 'only', '`.only` runs this test alone and drops the others');
      if (name === 'skip' || name === 'todo') report(node.name, 'skip', `\`.${name}\` skips silently: use \`.skipIf(skipBecause(condition, reason))\``);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ['skipIf', 'runIf'].includes(node.expression.name.text)) {
      const [condition] = node.arguments;
      const printed = condition !== undefined && ts.isCallExpression(condition) && ts.isIdentifier(condition.expression) && condition.expression.text === 'skipBecause';
      if (!printed) report(node.expression.name, 'skip', `\`.${node.expression.name.text}\` needs \`skipBecause(condition, reason)\`, which prints why`);
    }
    if (insideTry && (calls(node, 'expect', 'unreachable') || calls(node, 'expect', 'fail') || calls(node, 'assert', 'fail'))) {
      report(node, 'unreachable-in-try', 'the `catch` below catches this failure too: use `expect(() => ...).toThrow`, `rejects`, or thrown()');
    }
    if (isTestCall(node) && !['describe', 'suite'].includes(rootName(node.expression) ?? '')) {
      for (const arg of node.arguments.filter(isFunction)) {
        for (const r of silentReturns(arg)) report(r, 'silent-return', 'a test that returns early passes without checking: fail, or skipIf(skipBecause(...))');
      }
    }
    if (ts.isCallExpression(node) && !TEMP_DIR_OWNERS.has(file)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (name === 'mkdtemp' || name === 'mkdtempSync') report(node, 'temp-dir', 'make temp folders with tempDir() (test/helpers/temp-dir.ts), which removes them');
    }
    if (calls(node, 'process', 'emit') && node.arguments[0] !== undefined && ts.isStringLiteralLike(node.arguments[0]) && node.arguments[0].text.startsWith('SIG')) {
      report(node, 'process-signal', 'a signal emitted on this process reaches every test sharing the worker: signal a child process');
    }
    if (calls(node, 'process', 'kill') && node.arguments[0] !== undefined && node.arguments[0].getText(source) === 'process.pid') {
      report(node, 'process-signal', 'a signal sent to this process reaches every test sharing the worker: signal a child process');
    }
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && MACHINE_PATH.test(node.text)) {
      report(node, 'machine-path', `${JSON.stringify(node.text.slice(0, 40))} exists on one machine only: use a path relative to the repository or tempDir()`);
    }
    const tryBlock = ts.isTryStatement(node) && node.catchClause !== undefined ? node.tryBlock : undefined;
    ts.forEachChild(node, (child) => visit(child, insideTry || child === tryBlock));
  };
  visit(source, false);
  return findings.sort((a, b) => a.line - b.line || a.col - b.col);
}

function testFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.length > 2 ? process.argv.slice(2).map((f) => path.resolve(f)) : testFiles(path.join(root, 'test'));
  const findings = files.flatMap((f) => lintText(path.relative(root, f).split(path.sep).join('/'), readFileSync(f, 'utf8')));
  for (const f of findings) console.error(`${f.file}:${f.line}:${f.col} ${f.rule}: ${f.message}`);
  if (findings.length > 0) console.error(`lint-tests: ${findings.length} finding(s) in ${new Set(findings.map((f) => f.file)).size} file(s)`);
  process.exitCode = findings.length > 0 ? 1 : 0;
}
