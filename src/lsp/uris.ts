import { fileURLToPath, pathToFileURL } from 'node:url';

/** The file of a `file:` URI, or undefined for any other scheme (an untitled buffer, a diff view). */
export function fileOfUri(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export function uriOfFile(file: string): string {
  return pathToFileURL(file).href;
}
