import { visit, type Document, type Node } from 'yaml';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { keyString, nodeRange, type SourceText } from './source.js';

/**
 * Every repeated key of every mapping, at the repeat, with the first occurrence as a related
 * location. yaml reports only the repeat; showing both places is what makes the error useful.
 * Keys are compared as the JSON data sees them, so `1:` and `"1":` are the same key.
 */
export function findDuplicateKeys(doc: Document, source: SourceText, file: string): Diagnostic[] {
  const found: Diagnostic[] = [];
  visit(doc, {
    Map(_key, map) {
      const first = new Map<string, Node>();
      for (const pair of map.items) {
        const name = keyString(pair.key);
        const keyNode = pair.key as Node | null;
        const earlier = first.get(name);
        if (earlier === undefined) {
          if (keyNode !== null) first.set(name, keyNode);
          continue;
        }
        const here = nodeRange(source, keyNode);
        const there = nodeRange(source, earlier);
        if (here === undefined) continue;
        const diagnostic: Diagnostic = {
          code: 'yaml/duplicate-key',
          severity: 'error',
          message: `duplicate key "${name}"${there !== undefined ? ` (first defined at line ${there.start.line}, column ${there.start.col})` : ''}`,
          file,
          range: here,
          hint: 'remove one of them; YAML tools disagree on which value wins',
        };
        if (there !== undefined) diagnostic.related = [{ message: `first "${name}" is here`, file, range: there }];
        found.push(diagnostic);
      }
    },
  });
  return found;
}
