import { CodeActionKind, createConnection, StreamMessageReader, StreamMessageWriter, TextDocumentSyncKind, TextDocuments, type InitializeResult } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Catalog } from '../catalog/catalog.js';
import { version } from '../version.js';
import { catalogOf } from './catalog-of.js';
import { codeActions } from './code-actions.js';
import { complete, resolveCompletion } from './completion.js';
import { deployedLenses } from './deployed.js';
import { hover } from './hover.js';
import { fileOfUri } from './uris.js';
import { readSettings, type Settings } from './settings.js';
import { Validation } from './validation.js';

export interface LanguageServerOptions {
  /** The protocol's input (standard input for `sessionctl lsp`). */
  input: NodeJS.ReadableStream;
  /** The protocol's output: nothing else may ever be written to it. */
  output: NodeJS.WritableStream;
  /** Variables for `${VAR}` in manifests. */
  env: Readonly<Record<string, string | undefined>>;
  /** The workspace when the client names no folder. */
  cwd: string;
}

/**
 * Starts the language server on a pair of streams. The entry only makes the connection: each
 * area (diagnostics, completion, hover, code actions, code lens) registers its own handlers.
 * A handler that throws answers its request with an error; the server goes on.
 */
export function startLanguageServer(options: LanguageServerOptions): void {
  const connection = createConnection(new StreamMessageReader(options.input), new StreamMessageWriter(options.output));
  const documents = new TextDocuments(TextDocument);
  let settings: Settings = readSettings(undefined);
  let folders: string[] = [options.cwd];
  const validation = new Validation(connection, documents, () => ({ folders, env: options.env, settings }));

  connection.onInitialize((params): InitializeResult => {
    settings = readSettings(params.initializationOptions);
    const named = (params.workspaceFolders ?? []).map((f) => fileOfUri(f.uri)).filter((f): f is string => f !== undefined);
    const root = params.rootUri !== null && params.rootUri !== undefined ? fileOfUri(params.rootUri) : undefined;
    folders = named.length > 0 ? named : root !== undefined ? [root] : [options.cwd];
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        completionProvider: { triggerCharacters: [' ', '[', ','], resolveProvider: true },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        codeLensProvider: { resolveProvider: false },
      },
      serverInfo: { name: 'sessionctl', version },
    };
  });
  connection.onDidChangeConfiguration((params) => {
    settings = readSettings(params.settings, settings);
    validation.schedule(0);
  });
  documents.onDidOpen((e) => validation.opened(e.document));
  documents.onDidChangeContent((e) => {
    validation.changed(e.document);
    validation.schedule(settings.debounceMs);
  });
  // A saved file changes what the other files' runs read from disk (a name used twice).
  documents.onDidSave((e) => {
    validation.saved(e.document.uri);
    validation.schedule(0);
  });
  documents.onDidClose((e) => {
    validation.closed(e.document.uri);
    validation.schedule(settings.debounceMs);
  });
  /** An open manifest's text and the catalogue its project checks against; undefined for a document that is not a file. */
  const opened = async (uri: string): Promise<{ text: string; catalog: Awaited<ReturnType<typeof catalogOf>> } | undefined> => {
    const doc = documents.get(uri);
    const file = fileOfUri(uri);
    if (doc === undefined || file === undefined) return undefined;
    return { text: doc.getText(), catalog: await catalogOf(file, options.env) };
  };
  // The items resolved are those of the list on screen, the last one asked for: its catalogue documents them.
  let listed: Catalog | undefined;
  connection.onCompletion(async ({ textDocument, position }) => {
    const doc = await opened(textDocument.uri);
    listed = doc?.catalog;
    return doc === undefined ? [] : complete(doc.text, position.line, position.character, doc.catalog);
  });
  connection.onCompletionResolve((item) => (listed === undefined ? item : resolveCompletion(item, listed)));
  connection.onHover(async ({ textDocument, position }) => {
    const doc = await opened(textDocument.uri);
    return doc === undefined ? null : hover(doc.text, position.line, position.character, doc.catalog);
  });
  connection.onCodeAction(({ textDocument, context }) => {
    const doc = documents.get(textDocument.uri);
    return doc === undefined ? [] : codeActions(textDocument.uri, doc.getText(), context.diagnostics);
  });
  connection.onCodeLens(async ({ textDocument }) => {
    const doc = documents.get(textDocument.uri);
    const file = fileOfUri(textDocument.uri);
    if (!settings.deployedLens || doc === undefined || file === undefined) return [];
    return deployedLenses(file, doc.getText(), { folders, env: options.env });
  });
  documents.listen(connection);
  connection.listen();
}
