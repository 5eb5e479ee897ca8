/**
 * True for host names that can only be this machine: `localhost`, `127.0.0.0/8` and `[::1]` (URL
 * host names bracket IPv6 addresses). WHATWG URL parsing has already normalised `127.1` and `0x7f000001` to
 * `127.0.0.1` (runtime-facts §6); `127.0.0.1.nip.io` is a public name and is not loopback.
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return m !== null && m.slice(1).every((part) => Number(part) <= 255);
}
