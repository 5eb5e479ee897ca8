import type { Hover } from 'vscode-languageserver/node';
import type { Catalog } from '../catalog/catalog.js';
import { toolDoc, toolkitDoc } from './completion.js';
import { schemaAt } from './schema-docs.js';
import { cursorContext } from './yaml-context.js';

/**
 * What the word under the cursor is: a tool (name, toolkit, tags, description), a toolkit, or a
 * key of the manifest (its schema description).
 */
export function hover(text: string, line: number, character: number, catalog: Catalog): Hover | null {
  const lineText = text.split(/\r?\n/)[line] ?? '';
  const left = /[\w.-]*$/.exec(lineText.slice(0, character))![0];
  const right = /^[\w.-]*/.exec(lineText.slice(character))![0];
  const word = left + right;
  if (word === '') return null;
  const start = character - left.length;
  const range = { start: { line, character: start }, end: { line, character: start + word.length } };
  const tool = catalog.tool(word);
  if (tool !== undefined) return { contents: toolDoc(tool), range };
  const isKey = lineText.slice(start + word.length).trimStart().startsWith(':');
  const c = cursorContext(text, line, start + word.length);
  if (c === undefined) return null;
  const toolkit = catalog.toolkit(word);
  const underToolkits = c.path[0] === 'toolkits' || c.path[0] === 'tools' || c.path[0] === 'auth_configs' || c.path[0] === 'connected_accounts';
  if (toolkit !== undefined && (underToolkits || c.path.length === 1)) return { contents: toolkitDoc(toolkit), range };
  if (!isKey) return null;
  const path = c.kind === 'key' ? [...c.path, word] : c.path;
  const description = schemaAt(path)?.description;
  return description === undefined ? null : { contents: { kind: 'markdown', value: `**${path.join('.')}**\n\n${description}` }, range };
}
