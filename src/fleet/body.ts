import { filled } from '../config/published-body.js';
import type { Publication } from '../state/fleet.js';
import { joinPointer } from '../util/json-pointer.js';
import { isPlainObject } from '../util/plain-object.js';
import type { Json } from '../wire/json.js';
import { MissingVariableError } from './errors.js';

/**
 * The create body of a user's session from a publication: the user's id in `user_id`, and each
 * template (a sensitive value) expanded from `env`. A variable that is not there is an error
 * before any request: a session created with a hole in its config would have to be replaced.
 */
export function bodyFor(publication: Pick<Publication, 'name' | 'body' | 'templates'>, userId: string, env: Readonly<Record<string, string | undefined>>): { [key: string]: Json } {
  // Most publications hold no secret: the body is sent as published (never changed by the client).
  if (publication.templates.length === 0) return { ...publication.body, user_id: userId };
  const templates = new Map(publication.templates.map((t) => [t.pointer, t.parts]));
  const walk = (value: Json, pointer: string): Json => {
    const parts = templates.get(pointer);
    if (typeof value === 'string' && parts !== undefined) {
      const result = filled(parts, env);
      if ('missing' in result) throw new MissingVariableError(publication.name, result.missing);
      return result.value;
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${pointer}/${i}`));
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v as Json, joinPointer(pointer, k))]));
    return value;
  };
  const body = walk(publication.body, '') as { [key: string]: Json };
  return { ...body, user_id: userId };
}
