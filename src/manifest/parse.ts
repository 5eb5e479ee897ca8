import { basename, extname } from 'node:path';
import { Composer, isScalar, type CST, type Document, type Node } from 'yaml';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { checkAliases, copyWithin, EXPANSION_FACTOR, ExpansionTooLarge, MAX_ALIAS_COUNT } from './aliases.js';
import { checkManifestText, decodeManifestBytes, DEFAULT_MAX_FILE_BYTES } from './decode.js';
import { DEFAULT_MAX_DEPTH, findTooDeep } from './depth.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { interpolateDocument } from './interpolate-document.js';
import { locateSensitive } from './sensitive.js';
import { makeLocate, makeScalar, SourceText } from './source.js';
import { MAX_YAML_FINDINGS, readTokens, tooDeep } from './tokens.js';

export { MAX_DOCUMENTS, MAX_TOKENS } from './tokens.js';
import { capDiagnostic } from '../diagnostics/excerpt.js';
import type { ManifestDocument, UnsetVariables } from './types.js';
import { yamlDiagnostics } from './yaml-errors.js';
import { withoutYamlDebug } from './yaml-quiet.js';
import { oneFindingPerMistake } from './yaml-mistakes.js';
import { isPlainObject } from '../util/plain-object.js';

/** Options for parsing one in-memory source; see `LoadOptions` for the meaning of each. */
export interface ParseOptions {
  /** Variables for `${VAR}`. Default `{}`: nothing is read from `process.env`. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Default 1 MiB. */
  maxFileBytes?: number;
  /** Default 64. */
  maxDepth?: number;
  /** Variables declared sensitive, besides those whose name or value says so (see `sensitive.ts`). */
  sensitive?: readonly string[] | undefined;
  /** Default `error`. */
  unsetVariables?: UnsetVariables;
}

export interface ParsedSource {
  file: string;
  /** The decoded text (byte order mark removed), or undefined when the bytes are not UTF-8 text. */
  text: string | undefined;
  /** The documents that can be validated: empty documents and those with YAML errors are left out. */
  documents: ManifestDocument[];
  diagnostics: Diagnostic[];
}

/** The name of stdin in diagnostics and `ManifestDocument.file`. */
export const STDIN_FILE = '<stdin>';

/**
 * The one YAML profile of the project (runtime-facts §1.5): YAML 1.2 core schema whatever the file
 * says, no merge keys, unique string keys, and no logging (yaml's warnings become diagnostics).
 */
const composeOptions = {
  schema: 'core',
  version: '1.2',
  merge: false,
  // Our own duplicate-key check (duplicate-keys.ts) is linear and names both places; yaml's is
  // quadratic in the number of keys (10,000 keys took 3 s, 40,000 took 37 s), so it is off here.
  uniqueKeys: false,
  stringKeys: true,
  strict: true,
  // yaml would otherwise resolve the YAML 1.1 types !!binary, !!set, !!omap, !!pairs and
  // !!timestamp even under the core schema; manifests hold JSON data, so those are unknown tags.
  resolveKnownTags: false,
  prettyErrors: false,
  logLevel: 'error',
} as const;

/**
 * Parses one manifest source (a file's bytes, or text given by a program) into documents and
 * located diagnostics. Nothing is thrown for bad input; nothing in the input is ever executed.
 *
 * Order matters for safety: the size is checked before decoding, the encoding before parsing,
 * and the nesting depth on the concrete syntax tree before anything is composed.
 */
export function parseManifestText(input: string | Uint8Array, file: string, options: ParseOptions): ParsedSource {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const decoded = typeof input === 'string' ? checkManifestText(input, file, maxBytes) : decodeManifestBytes(input, file, maxBytes);
  if (!decoded.ok) return { file, text: undefined, documents: [], diagnostics: [decoded.diagnostic] };

  const text = decoded.text;
  const source = new SourceText(text);
  const diagnostics: Diagnostic[] = [];
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const stream = readTokens(text, maxDepth);
  if (stream.stop !== undefined) {
    const { offset, ...stop } = stream.stop;
    diagnostics.push({ ...stop, file, range: source.range(offset) });
    return { file, text, documents: [], diagnostics };
  }
  const tokens = stream.tokens;

  const deep = findTooDeep(tokens, maxDepth);
  if (deep !== undefined) {
    diagnostics.push({ ...tooDeep(maxDepth), file, range: source.range(deep.offset) });
    return { file, text, documents: [], diagnostics };
  }

  diagnostics.push(...versionDirectives(tokens, source, file));

  const composer = new Composer(composeOptions);
  const docs = withoutYamlDebug(() => Array.from(composer.compose(tokens))) as Document.Parsed[];
  if (docs.length === 0) {
    const info = composer.streamInfo();
    diagnostics.push(...oneFindingPerMistake(yamlDiagnostics([...info.errors, ...info.warnings], source, file)));
    diagnostics.push({ code: 'yaml/empty', severity: 'warning', message: 'the file holds no YAML document', file, range: source.range(0) });
    return { file, text, documents: [], diagnostics: capYamlFindings(diagnostics) };
  }

  const documents: ManifestDocument[] = [];
  const maxExpansion = EXPANSION_FACTOR * maxBytes;
  const expand = { env: options.env ?? {}, declared: new Set(options.sensitive ?? []), unset: options.unsetVariables ?? 'error' };
  docs.forEach((doc, index) => {
    const result = composeDocument(doc, index, docs.length, source, file, expand, maxExpansion);
    diagnostics.push(...result.diagnostics);
    if (result.document !== undefined) documents.push(result.document);
  });
  return { file, text, documents, diagnostics: capYamlFindings(diagnostics) };
}

function composeDocument(
  doc: Document.Parsed,
  index: number,
  count: number,
  source: SourceText,
  file: string,
  expand: { env: Readonly<Record<string, string | undefined>>; declared: ReadonlySet<string>; unset: UnsetVariables },
  maxExpansion: number,
): { document?: ManifestDocument; diagnostics: Diagnostic[] } {
  const diagnostics = yamlFindings(doc, source, file);

  const docLabel = count > 1 ? `document ${index + 1}` : 'the document';
  if (isEmptyDocument(doc)) {
    diagnostics.push({ code: 'yaml/empty', severity: 'warning', message: `${docLabel} is empty`, file, range: source.range(doc.range?.[0] ?? 0) });
    return { diagnostics };
  }

  const aliases = checkAliases(doc, source, file, docLabel);
  diagnostics.push(...aliases.diagnostics);
  const expanded = interpolateDocument(doc, source, file, expand.env, { remaining: maxExpansion / EXPANSION_FACTOR }, expand.declared, expand.unset);
  diagnostics.push(...expanded.diagnostics);

  if (diagnostics.some((d) => d.severity === 'error' && !d.code.startsWith('env/'))) return { diagnostics };

  const converted = documentData(doc, aliases.firstAlias, docLabel, source, file, maxExpansion);
  if ('diagnostic' in converted) return { diagnostics: [...diagnostics, converted.diagnostic] };
  const { data } = converted;

  const declared = declaredName(data);
  const nameDeclared = declared !== undefined;
  // A name whose `${VAR}` could not be expanded is not an identity (it would be the same for
  // every manifest with that mistake): the file stem stands in while the env error is fixed.
  const nameUnexpanded = diagnostics.some((d) => d.code.startsWith('env/') && d.pointer === '/name');
  const document: ManifestDocument = {
    file,
    index,
    name: declared !== undefined && !nameUnexpanded ? declared : defaultName(file, index),
    nameDeclared,
    data,
    locate: makeLocate(source, doc),
    scalar: makeScalar(source, doc),
  };
  const sensitive = locateSensitive(data, expanded.sensitive);
  if (sensitive.size > 0) document.sensitive = sensitive;
  return { document, diagnostics };
}

/**
 * yaml's errors and warnings for one document, and our duplicate-key findings (yaml's own check is
 * off: `uniqueKeys: false`, under which yaml 2 never reports DUPLICATE_KEY).
 */
function yamlFindings(doc: Document.Parsed, source: SourceText, file: string): Diagnostic[] {
  const diagnostics = findDuplicateKeys(doc, source, file);
  // A version directive is reported once per directive by versionDirectives, with the version in the message.
  const errors = [...doc.errors, ...doc.warnings].filter((e) => !(e.code === 'BAD_DIRECTIVE' && /YAML version/i.test(e.message)));
  diagnostics.push(...yamlDiagnostics(errors, source, file));
  return oneFindingPerMistake(diagnostics);
}

/**
 * The document as data, with its aliases expanded within the limit; or the one finding that says
 * why it cannot be.
 */
function documentData(
  doc: Document.Parsed,
  firstAlias: Range | undefined,
  docLabel: string,
  source: SourceText,
  file: string,
  maxExpansion: number,
): { data: unknown } | { diagnostic: Diagnostic } {
  try {
    const data: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { data: firstAlias !== undefined ? copyWithin(data, maxExpansion) : data };
  } catch (err) {
    if (err instanceof ExpansionTooLarge || (err instanceof ReferenceError && /alias/i.test(err.message))) {
      return {
        diagnostic: {
          code: 'yaml/excessive-aliases',
          severity: 'error',
          message:
            err instanceof ExpansionTooLarge
              ? `${docLabel} expands through aliases to more than ${EXPANSION_FACTOR} times the file size limit`
              : `${docLabel} repeats one anchored value ${MAX_ALIAS_COUNT} times or more through aliases (the aliases inside a repeated value count again)`,
          file,
          range: firstAlias ?? source.range(doc.range?.[0] ?? 0),
          hint: 'write the values out, or share fewer of them through anchors',
        },
      };
    }
    // toJS failing otherwise is not expected for a composed document without errors; report it
    // at the document rather than crash on a file we cannot read.
    return {
      diagnostic: {
        code: 'yaml/syntax',
        severity: 'error',
        message: `${docLabel} could not be converted to data: ${err instanceof Error ? err.message : String(err)}`,
        file,
        range: source.range(doc.range?.[0] ?? 0),
      },
    };
  }
}

/** The document's own `name:`, when it is a non-empty string. */
export function declaredName(data: unknown): string | undefined {
  const declared = isPlainObject(data) && Object.prototype.hasOwnProperty.call(data, 'name') ? data['name'] : undefined;
  return typeof declared === 'string' && declared !== '' ? declared : undefined;
}

/** The file stem, with `#N` for the second and later documents (DESIGN §1). */
export function defaultName(file: string, index: number): string {
  const stem = file === STDIN_FILE ? 'stdin' : basename(file, extname(file));
  return index === 0 ? stem : `${stem}#${index + 1}`;
}

function isEmptyDocument(doc: Document.Parsed): boolean {
  const c = doc.contents as Node | null;
  if (c === null) return true;
  return isScalar(c) && c.value === null && c.source === '' && c.tag === undefined && c.anchor === undefined;
}

/** `%YAML 1.1` (or any version but 1.2) is read as 1.2 anyway; say so where the directive is. */
function versionDirectives(tokens: readonly CST.Token[], source: SourceText, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const t of tokens) {
    if (t.type !== 'directive') continue;
    const m = /^%YAML[ \t]+(\S+)/.exec(t.source);
    if (m === null || m[1] === '1.2') continue;
    out.push({
      code: 'yaml/directive',
      severity: 'warning',
      message: `the file asks for YAML ${m[1]}; manifests are always read as YAML 1.2`,
      file,
      range: source.range(t.offset, t.offset + t.source.trimEnd().length),
      hint: 'remove the %YAML directive; quote values such as yes, on or 0755 that YAML 1.1 would read differently',
    });
  }
  return out;
}

/**
 * Keeps at most `MAX_YAML_FINDINGS` findings of each file and says how many more there were; caps
 * what messages quote. Errors are kept before warnings and notes (a file of thousands of warnings
 * must still show the error that stops it), and the kept ones stay in the order they came in: the
 * cap only leaves findings out, it never reorders them.
 */
function capYamlFindings(all: Diagnostic[]): Diagnostic[] {
  const diagnostics = all.map(capDiagnostic);
  if (diagnostics.length <= MAX_YAML_FINDINGS) return diagnostics;
  const order: readonly Diagnostic['severity'][] = ['error', 'warning', 'info'];
  const rank = (d: Diagnostic): number => order.indexOf(d.severity);
  // Array.prototype.sort is stable: within a severity, the first ones in the file are kept.
  const keptAt = new Set(
    diagnostics
      .map((_, i) => i)
      .sort((a, b) => rank(diagnostics[a]!) - rank(diagnostics[b]!))
      .slice(0, MAX_YAML_FINDINGS),
  );
  const kept = diagnostics.filter((_, i) => keptAt.has(i));
  const rest = diagnostics.filter((_, i) => !keptAt.has(i));
  const next = rest[0] as Diagnostic;
  const more: Diagnostic = {
    code: next.code,
    // The count is as severe as the worst finding it stands for, so that the exit code does not change.
    // (reduce, not Math.min(...): a hostile text has hundreds of thousands, past the argument limit).
    severity: order[rest.reduce((worst, d) => Math.min(worst, rank(d)), order.length - 1)]!,
    message: `${rest.length} more problems in this file are not shown`,
  };
  if (next.file !== undefined) more.file = next.file;
  if (next.range !== undefined) more.range = next.range;
  kept.push(more);
  return kept;
}
