/**
 * A per-user manifest declares a kind of session that every end user of an application gets
 * (a support agent), not the session of one user: its `user_id` is this placeholder, which only
 * the application fills, at run time (`ensure(name, userId)`). `apply` publishes such a manifest
 * instead of creating a session. The spelling is not a `${VAR}` on purpose: nothing in the
 * pipeline's environment can fill it, and a reader sees at once that no user is named.
 */
export const END_USER = '<end-user>';

/** Whether a manifest's data is per-user (its `user_id` is exactly the placeholder). */
export function isPerUser(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { user_id?: unknown }).user_id === END_USER;
}
