import { readFileSync } from 'node:fs';
import type { Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { checkOpenFiles, type CheckContext } from './check-open.js';
import { toLspDiagnostic } from './to-lsp.js';
import { fileOfUri } from './uris.js';

/**
 * Checks the open buffers after edits, debounced: each edit restarts the wait, so a burst of
 * typing (or 10,000 edits of a script) costs one run once it stops. Runs never overlap: an edit
 * during a run queues one more after it. A document's diagnostics are published when they or its
 * version changed.
 */
export class Validation {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private again = false;
  private readonly published = new Map<string, string>();
  /**
   * Open documents whose text may differ from the file: only these are checked from their
   * buffer. The others are read from disk like every other file of the run, on validate's fast
   * path when clean (same findings, a fraction of the time with many files open).
   */
  private readonly unsaved = new Set<string>();
  private readonly openedAt = new Map<string, number>();

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly context: () => CheckContext,
  ) {}

  /** Checks again after `delay` ms without another call. */
  schedule(delay: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, delay);
  }

  /** A document was opened: unsaved when its text is not the file's (or there is no file). */
  opened(doc: TextDocument): void {
    this.openedAt.set(doc.uri, doc.version);
    const file = fileOfUri(doc.uri);
    let same = false;
    try {
      same = file !== undefined && readFileSync(file, 'utf8') === doc.getText();
    } catch {
      same = false;
    }
    if (same) this.unsaved.delete(doc.uri);
    else this.unsaved.add(doc.uri);
  }

  /** The text changed (the open itself reports a change too, at the version it opened with). */
  changed(doc: TextDocument): void {
    if (this.openedAt.get(doc.uri) !== doc.version) this.unsaved.add(doc.uri);
  }

  /** Saved: the file holds the buffer's text. */
  saved(uri: string): void {
    this.unsaved.delete(uri);
  }

  /** A closed buffer's findings are withdrawn: the file on disk is `validate`'s business again. */
  closed(uri: string): void {
    this.published.delete(uri);
    this.unsaved.delete(uri);
    this.openedAt.delete(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      await this.check();
    } catch (err) {
      // One failed run must not end the server: the next edit tries again.
      this.connection.console.error(`sessionctl: checking the open files failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.schedule(0);
      }
    }
  }

  private async check(): Promise<void> {
    const texts = new Map<string, string>();
    const open = new Map<string, TextDocument>();
    for (const doc of this.documents.all()) {
      const file = fileOfUri(doc.uri);
      if (file === undefined) continue;
      if (this.unsaved.has(doc.uri)) texts.set(file, doc.getText());
      open.set(file, doc);
    }
    const results = await checkOpenFiles(new Set(open.keys()), texts, this.context());
    for (const [file, found] of results) {
      const doc = open.get(file);
      // Closed while the run went on: its findings were withdrawn already.
      if (doc === undefined || this.documents.get(doc.uri) === undefined) continue;
      const diagnostics = found.diagnostics.map((d) => toLspDiagnostic(d, found.cwd));
      const key = `${doc.version}\u0000${JSON.stringify(diagnostics)}`;
      if (this.published.get(doc.uri) === key) continue;
      this.published.set(doc.uri, key);
      await this.connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics });
    }
  }
}
