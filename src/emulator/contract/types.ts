/**
 * The shapes of the contract as the emulator reads it: each operation's request schemas (converted
 * from OpenAPI to JSON Schema at generation time, `scripts/generate/openapi-to-json-schema.ts`)
 * and its success status and response schema.
 */

export type JsonSchema = { [key: string]: unknown };

/** One operation of the contract, with its schemas converted. */
export interface OperationSchemas {
  operationId: string;
  method: string;
  path: string;
  successStatus: number;
  /** JSON body schema, when the operation declares a non-empty one. */
  body?: JsonSchema;
  /** Query parameters as one object schema (values still need coercion from strings). */
  query?: JsonSchema;
  /** Path parameters as one object schema. */
  pathParams?: JsonSchema;
  /** The success response's body schema. */
  response: JsonSchema;
  /** Error response body schema (the shared envelope). */
  error: JsonSchema;
}

/** What the emulator keeps of an operation at run time (`operations.generated.ts`). */
export type EmulatorOperation = Omit<OperationSchemas, 'response' | 'error'>;
