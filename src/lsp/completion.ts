import { CompletionItemKind, MarkupKind, type CompletionItem } from 'vscode-languageserver/node';
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogTool, CatalogToolkit } from '../catalog/types.js';
import { enumAt, keysAt } from './schema-docs.js';
import { cursorContext, type CursorContext } from './yaml-context.js';

/** Where a list or key names toolkits: the allowlist or denylist, and the maps keyed by toolkit. */
function namesToolkit(c: CursorContext): boolean {
  const [first, second] = c.path;
  if (first === 'toolkits') return c.kind !== 'key' && (c.path.length === 1 || ((second === 'enable' || second === 'disable') && c.path.length === 2));
  return c.kind === 'key' && c.path.length === 1 && (first === 'tools' || first === 'auth_configs' || first === 'connected_accounts');
}

/** The toolkit whose tools a list under `tools.<toolkit>` names, or undefined. */
function toolsOfToolkit(c: CursorContext): string | undefined {
  if (c.path[0] !== 'tools' || c.path[1] === undefined || c.kind === 'key') return undefined;
  if (c.path.length === 2) return c.path[1];
  return c.path.length === 3 && (c.path[2] === 'enable' || c.path[2] === 'disable') ? c.path[1] : undefined;
}

/**
 * Completion at a place of a manifest: keys with their schema docs, toolkit slugs where a
 * toolkit is named, under `tools.<toolkit>` only that toolkit's tools (name and tags), every tool
 * under `preload.tools`, and a scalar's allowed values (tags among them).
 */
export function complete(text: string, line: number, character: number, catalog: Catalog): CompletionItem[] {
  const c = cursorContext(text, line, character);
  if (c === undefined) return [];
  const range = { start: { line, character: c.start }, end: { line, character } };
  const item = (label: string, kind: CompletionItemKind, extra: Partial<CompletionItem> = {}): CompletionItem => ({ label, kind, textEdit: { range, newText: extra.insertText ?? label }, ...extra });
  if (namesToolkit(c)) {
    const suffix = c.kind === 'key' ? ':' : '';
    return catalog.toolkits.map((tk) => item(tk.slug, CompletionItemKind.Module, { detail: tk.name, data: { toolkit: tk.slug }, insertText: tk.slug + suffix }));
  }
  const toolkit = toolsOfToolkit(c);
  if (toolkit !== undefined) return catalog.toolsOf(toolkit).map((t) => toolItem(t, item));
  if (c.path[0] === 'preload' && c.path[1] === 'tools' && c.kind !== 'key') return catalog.tools.map((t) => toolItem(t, item));
  if (c.kind === 'key') return keysAt(c.path).map((k) => item(k.key, CompletionItemKind.Property, { documentation: { kind: MarkupKind.Markdown, value: k.description }, insertText: `${k.key}: ` }));
  return enumAt(c.path).map((v) => item(v, CompletionItemKind.EnumMember));
}

function toolItem(t: CatalogTool, item: (label: string, kind: CompletionItemKind, extra?: Partial<CompletionItem>) => CompletionItem): CompletionItem {
  return item(t.slug, CompletionItemKind.Function, { detail: `${t.name}${t.tags.length > 0 ? ` · ${t.tags.join(', ')}` : ''}`, data: { tool: t.slug } });
}

/**
 * A tool's or toolkit's documentation, asked for when the editor shows the item
 * (completionItem/resolve): the lists run to 823 tools of one toolkit, and writing every
 * description into the list tripled the time of each completion (bench/lsp).
 */
export function resolveCompletion(item: CompletionItem, catalog: Catalog): CompletionItem {
  const data: unknown = item.data;
  if (typeof data !== 'object' || data === null) return item;
  const { tool, toolkit } = data as { tool?: unknown; toolkit?: unknown };
  const t = typeof tool === 'string' ? catalog.tool(tool) : undefined;
  if (t !== undefined) return { ...item, documentation: toolDoc(t) };
  const tk = typeof toolkit === 'string' ? catalog.toolkit(toolkit) : undefined;
  return tk !== undefined ? { ...item, documentation: toolkitDoc(tk) } : item;
}

/** A tool as hover and completion describe it: name, toolkit, tags, description. */
export function toolDoc(t: CatalogTool): { kind: 'markdown'; value: string } {
  const tags = t.tags.length > 0 ? t.tags.map((tag) => `\`${tag}\``).join(' ') : 'none';
  return { kind: MarkupKind.Markdown, value: [`**${t.name}** \`${t.slug}\``, '', `Toolkit: \`${t.toolkit}\` · Tags: ${tags}`, ...(t.description !== undefined ? ['', t.description] : [])].join('\n') };
}

export function toolkitDoc(tk: CatalogToolkit): { kind: 'markdown'; value: string } {
  const auth = tk.no_auth ? 'no auth' : tk.auth_schemes.join(', ') || 'none listed';
  return { kind: MarkupKind.Markdown, value: [`**${tk.name}** \`${tk.slug}\``, '', `Auth: ${auth}`, ...(tk.description !== undefined ? ['', tk.description] : [])].join('\n') };
}
