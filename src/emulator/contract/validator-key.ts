/** Which part of a request a generated validator checks. */
export type ValidatorPart = 'pathParams' | 'query' | 'body';

/** The key of one request validator in the generated module: `<operationId>:<part>`. */
export function validatorKey(operationId: string, part: ValidatorPart): string {
  return `${operationId}:${part}`;
}
