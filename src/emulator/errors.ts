/**
 * The service's error envelope (api facts §1, §6.1): `{"error": {message, code, slug, status,
 * request_id, suggested_fix?, errors?}}`, `code` a number (10000 + status for generic HTTP errors,
 * 43xx for tool-router errors). Route handlers throw `ServiceError`; the server renders it.
 */

export interface ErrorEnvelope {
  error: {
    message: string;
    code: number;
    slug: string;
    status: number;
    request_id: string;
    suggested_fix?: string;
    errors?: string[];
  };
}

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly code: number,
    message: string,
    readonly errors?: string[],
    readonly suggestedFix?: string,
  ) {
    super(message);
  }
}

const HTTP_SLUGS: Record<number, string> = {
  400: 'HTTP_BadRequest',
  401: 'HTTP_Unauthorized',
  403: 'HTTP_Forbidden',
  404: 'HTTP_NotFound',
  405: 'HTTP_MethodNotAllowed',
  408: 'HTTP_RequestTimeout',
  409: 'HTTP_Conflict',
  413: 'HTTP_PayloadTooLarge',
  415: 'HTTP_UnsupportedMediaType',
  421: 'HTTP_MisdirectedRequest',
  422: 'HTTP_UnprocessableEntity',
  429: 'HTTP_TooManyRequests',
  500: 'HTTP_InternalServerError',
  501: 'HTTP_NotImplemented',
  502: 'HTTP_BadGateway',
  503: 'HTTP_ServiceUnavailable',
  504: 'HTTP_GatewayTimeout',
};

/** A generic HTTP error: slug `HTTP_<Reason>`, code 10000 + status. */
export function httpError(status: number, message: string, errors?: string[]): ServiceError {
  return new ServiceError(status, HTTP_SLUGS[status] ?? `HTTP_${status}`, 10000 + status, message, errors);
}

/** Tool-router errors with the slugs and codes observed on the real service (api facts §6.3). */
export const toolRouterErrors = {
  badRequest: (message: string, errors?: string[]) => new ServiceError(400, 'ToolRouterV2_BadRequest', 4300, message, errors),
  noActiveConnection: (toolkit: string) =>
    new ServiceError(
      400,
      'ToolRouterV2_NoActiveConnection',
      4302,
      `No active connection for toolkit '${toolkit}'`,
      undefined,
      'Create a link with POST /link and complete it, or pin a connected account in the session config',
    ),
  invalidToolkitSlugs: (slugs: readonly string[], errors?: string[]) =>
    new ServiceError(400, 'ToolRouterV2_InvalidToolkitSlugs', 4305, `Invalid toolkit slugs: ${slugs.join(', ')}`, errors),
  noManagedAuth: (toolkit: string) =>
    new ServiceError(
      400,
      'ToolRouterV2_NoManagedAuth',
      4308,
      `Toolkit '${toolkit}' has no Composio-managed auth and no auth config was given for it`,
      undefined,
      'Pass an auth config for this toolkit in auth_configs when creating the session',
    ),
  toolkitIsNoAuth: (toolkit: string) =>
    new ServiceError(400, 'ToolRouterV2_ToolkitsIsNoAuth', 4326, `Toolkit '${toolkit}' needs no authentication`),
} as const;

/**
 * The challenge every 401 carries (RFC 9110 §11.6.1 requires one): the key goes in `x-api-key`. Not
 * `Bearer` and no `resource_metadata`, so an MCP client (the Inspector) reports a bad key instead
 * of starting OAuth discovery against a server that has none.
 */
export const API_KEY_CHALLENGE = 'ApiKey realm="composio", header="x-api-key"';

/** Headers an error answer must carry besides the envelope: the challenge of a 401. */
export function challengeOf(err: ServiceError): Record<string, string> {
  return err.status === 401 ? { 'www-authenticate': API_KEY_CHALLENGE } : {};
}

export function envelope(err: ServiceError, requestId: string): ErrorEnvelope {
  return {
    error: {
      message: err.message,
      code: err.code,
      slug: err.slug,
      status: err.status,
      request_id: requestId,
      ...(err.suggestedFix === undefined ? {} : { suggested_fix: err.suggestedFix }),
      ...(err.errors === undefined ? {} : { errors: err.errors }),
    },
  };
}
