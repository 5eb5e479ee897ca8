/** JSON as it travels: decoded values, and objects that keep the keys a newer service adds. */

/** A JSON value as decoded from the service. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Unknown keys are kept and never fatal. */
export interface Open {
  [key: string]: unknown;
}

/** The two API versions the service serves: `/api/v3/...` and `/api/v3.1/...`. */
export type ApiVersion = '3' | '3.1';

export const API_VERSIONS: readonly ApiVersion[] = ['3', '3.1'];
