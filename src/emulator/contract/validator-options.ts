/**
 * The ajv options for request validation, shared by the generator of the standalone validators and
 * by anything that compiles the same schemas at run time, so both judge alike: every error
 * (`allErrors`), the offending value kept on each error (`verbose`: the error lines name the received
 * type or enum value), no coercion, defaults or removal (runtime-facts §2.1), and `strict: false`
 * because the contract carries OpenAPI annotations that do not change what validates.
 */
export const ajvOptions = { allErrors: true, strict: false, validateFormats: true, verbose: true } as const;

export type ValidatorPart = 'pathParams' | 'query' | 'body';

/** The key of one request validator: `<operationId>:<part>`. */
export function validatorKey(operationId: string, part: ValidatorPart): string {
  return `${operationId}:${part}`;
}
