import { UsageError } from '../diagnostics/errors.js';
import { isLoopbackHost } from '../util/loopback.js';

export { isLoopbackHost };

/** The service's public endpoint (facts §1). */
export const DEFAULT_BASE_URL = 'https://backend.composio.dev';

export interface KeyedUrlOptions {
  /**
   * Also send the key over plain http to a host that is not loopback: an emulator in another
   * container (a compose service in an application's tests). Never for the real service: anyone on
   * the network path reads the key. Default false.
   */
  allowInsecureHttp?: boolean;
}

/** What turns plain http to another host on, in the library and in the CLI (said in the refusal). */
export const INSECURE_HTTP_OPT_IN = 'allowInsecureHttp: true in the library, SESSIONCTL_ALLOW_HTTP=1 for the CLI';

/**
 * Checks a URL the API key may be sent to, and returns it parsed. The key travels only over
 * https, or plain http to loopback (an emulator), or to any host with `allowInsecureHttp`;
 * `user:pass@` and `0.0.0.0` are refused. `what` names the setting in the error ("--base-url").
 */
export function checkKeyedUrl(raw: string, what = '--base-url', options: KeyedUrlOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${what} is not a valid URL: ${JSON.stringify(raw)}`, 'use an absolute URL such as https://backend.composio.dev');
  }
  if (url.username !== '' || url.password !== '') {
    // Do not echo the URL: its userinfo may be a secret.
    throw new UsageError(`${what} must not contain a user name or password`, 'the API key comes from COMPOSIO_API_KEY or --api-key-file');
  }
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') {
    throw new UsageError(`${what} ${url.origin} is an unspecified address, not a host to connect to`, 'use 127.0.0.1 for a local emulator');
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname) || options.allowInsecureHttp === true) return url;
    throw new UsageError(
      `${what} ${url.origin} uses plain http; the API key is only sent over https (or http to localhost, 127.0.0.0/8, [::1])`,
      `use https://${url.host}; for an emulator on another host (a compose service in tests) opt in with ${INSECURE_HTTP_OPT_IN}`,
    );
  }
  throw new UsageError(`${what} must be an http(s) URL, not ${url.protocol}`);
}

/**
 * Validates the service's base URL and returns its origin plus any path prefix, without a
 * trailing slash (so a gateway at `https://gw.example.com/composio` works). Query and fragment
 * are refused: they would be dropped silently otherwise. `what` names where the value came from
 * in a refusal (`--base-url`, `COMPOSIO_BASE_URL`, the project file's `base_url`).
 */
export function normalizeBaseUrl(raw: string, options: KeyedUrlOptions = {}, what = '--base-url'): string {
  const url = checkKeyedUrl(raw, what, options);
  if (url.search !== '' || url.hash !== '') throw new UsageError(`${what} must not contain a query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
