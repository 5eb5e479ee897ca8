/**
 * Imports the modules of an optional dependency, or answers undefined when the package is not
 * installed. The specifiers are built at run time, so that neither tsc's tree nor the CLI bundle
 * imports the package statically: an application that never uses it neither installs nor parses it.
 * Any other failure (the package is there but broken, one of its own dependencies is missing) is
 * rethrown as it is.
 */
export async function importOptional(pkg: string, subpaths: readonly string[]): Promise<object[] | undefined> {
  try {
    return await Promise.all(subpaths.map((p) => import(`${pkg}/${p}`) as Promise<object>));
  } catch (err) {
    if (isMissing(err, pkg)) return undefined;
    throw err;
  }
}

/** Node's "cannot find package" for `pkg` itself (not for a dependency of it). */
function isMissing(err: unknown, pkg: string): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (e.code !== 'ERR_MODULE_NOT_FOUND' || typeof e.message !== 'string') return false;
  return e.message.includes(`'${pkg}'`) || e.message.includes(`'${pkg}/`);
}

/** What the CLI and the emulator say when the MCP SDK is not installed. */
export const MCP_SDK_MISSING = "install @modelcontextprotocol/sdk to use sessionctl mcp / the emulator's MCP (it is an optional dependency of sessionctl: npm install @modelcontextprotocol/sdk)";
