// An application that gives each of its users a Tool Router session of the helpdesk agent:
// `GET /users/{id}/mcp` answers the MCP URL of that user's session, created on the user's first
// request (once, however many requests and processes ask at once) and read from the state after.
// The pipeline publishes the manifest (`sessionctl apply manifests/`); this process never reads it.
//
//   SESSIONCTL_STATE=postgres://app@db/sessions COMPOSIO_API_KEY=... node server.mjs
//
// sessionctl's own tests run this file against the emulator (test/e2e/example-app.test.ts).
import { createServer } from 'node:http';
import { EnsureTimeoutError, InvalidUserIdError, NotPublishedError, OutcomeUnknownError, openSessions } from 'sessionctl';

const MANIFEST = 'helpdesk-agent';

/** Starts the application on `port` (0: a free one); resolves with its URL and a way to stop it. */
export async function startApp({ state, apiKey, baseUrl, env, port = 0 }) {
  // Fails here, not at the first request: a state that is not there, or bound to another key.
  const sessions = await openSessions(state, { apiKey, baseUrl, env });
  const server = createServer((req, res) => {
    handle(sessions, req).then(
      ([status, body, headers = {}]) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'internal error' }));
      },
    );
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await sessions.close();
    },
  };
}

async function handle(sessions, req) {
  const path = new URL(req.url ?? '/', 'http://app').pathname;
  const match = /^\/users\/([^/]+)\/mcp$/.exec(path);
  if (match === null) return [404, { error: 'not found' }];
  if (req.method !== 'GET') return [405, { error: 'use GET' }, { allow: 'GET' }];
  try {
    const s = await sessions.ensure(MANIFEST, decodeURIComponent(match[1]));
    return [200, { user_id: s.userId, mcp_url: s.mcpUrl, session_id: s.sessionId, version: s.version, created: s.created }];
  } catch (err) {
    // Each error is a class of its own, so the application answers each as it should.
    if (err instanceof InvalidUserIdError) return [400, { error: err.message }];
    if (err instanceof EnsureTimeoutError) return [503, { error: 'the session is being created; try again' }, { 'retry-after': '1' }];
    if (err instanceof OutcomeUnknownError) return [503, { error: 'the session cannot be created now; an operator was told' }];
    if (err instanceof NotPublishedError) return [503, { error: 'the helpdesk agent is not deployed yet' }];
    throw err;
  }
}

// Run directly: the configuration comes from the environment.
if (import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const env = process.env;
  const app = await startApp({ state: env.SESSIONCTL_STATE, apiKey: env.COMPOSIO_API_KEY, baseUrl: env.COMPOSIO_BASE_URL, env, port: Number(env.PORT ?? 3000) });
  process.stdout.write(`${app.url}\n`);
  const stop = () => app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
