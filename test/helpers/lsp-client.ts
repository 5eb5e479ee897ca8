import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver/node';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/sessionctl.js');

export interface LspOptions {
  /** The workspace folders, absolute. */
  folders: string[];
  /** The server's working directory. Default: the first folder. */
  cwd?: string;
  /** Variables beside PATH in the server's environment. */
  env?: Record<string, string>;
  initializationOptions?: unknown;
}

/**
 * A real protocol client (vscode-jsonrpc's stream reader and writer) driving `node
 * dist/sessionctl.js lsp` as a child process over its standard input and output, as an editor
 * does. It keeps every diagnostics notification, so a test waits for the one it expects.
 */
export class LspClient {
  readonly connection: ProtocolConnection;
  /** Everything the server wrote to standard error (its logs). */
  stderr = '';
  private readonly published: PublishDiagnosticsParams[] = [];
  private waiters: Array<() => void> = [];
  private versions = new Map<string, number>();

  private constructor(readonly child: ChildProcess) {
    this.connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    child.stderr!.on('data', (chunk: Buffer) => void (this.stderr += chunk.toString('utf8')));
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.push(params);
      for (const wake of this.waiters.splice(0)) wake();
    });
    // A server that ends wakes every waiter, which then says so instead of waiting forever.
    child.on('exit', () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.connection.listen();
  }

  static async start(options: LspOptions): Promise<LspClient> {
    if (!existsSync(bin)) throw new Error('dist/sessionctl.js is missing: run `npm run build`');
    const child = spawn(process.execPath, [bin, 'lsp', '--stdio'], {
      cwd: options.cwd ?? options.folders[0],
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const client = new LspClient(child);
    await client.connection.sendRequest(InitializeRequest.type, {
      processId: null,
      rootUri: null,
      capabilities: {},
      workspaceFolders: options.folders.map((f) => ({ uri: pathToFileURL(f).href, name: f })),
      initializationOptions: options.initializationOptions,
    });
    await client.connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  /** Opens a file with the given text (default: as it is on disk is the caller's business), version 1. */
  async open(file: string, text: string): Promise<string> {
    const uri = pathToFileURL(file).href;
    this.versions.set(uri, 1);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return uri;
  }

  /** Replaces the whole text of an open document; returns its new version. */
  async change(uri: string, text: string): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return version;
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** The diagnostics of the first notification for `uri` (at `version`, when given) from now or already received. */
  async diagnostics(uri: string, version?: number): Promise<Diagnostic[]> {
    for (;;) {
      const found = this.published.findLast((p) => p.uri === uri && (version === undefined || p.version === version));
      if (found !== undefined) return found.diagnostics;
      if (this.child.exitCode !== null) throw new Error(`the server ended (exit code ${this.child.exitCode}): ${this.stderr}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Sends a request about a position of an open document. */
  at<R>(method: string, uri: string, line: number, character: number, extra: object = {}): Promise<R> {
    return this.connection.sendRequest<R>(method, { textDocument: { uri }, position: { line, character }, ...extra });
  }

  /** Shuts the server down as an editor does, and waits for the process to end; its exit code. */
  async stop(): Promise<number | null> {
    const ended = new Promise<number | null>((resolve) => {
      if (this.child.exitCode !== null) resolve(this.child.exitCode);
      else this.child.once('exit', (code) => resolve(code));
    });
    if (this.child.exitCode === null) {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    }
    const code = await ended;
    this.connection.dispose();
    return code;
  }
}
