/**
 * Examples in the OpenAPI document, by operationId: answers the server really gave to these requests
 * (src/http/openapi-examples.test.ts books, prices and invoices them on a fresh database and fails
 * when an answer differs).
 */
export interface OperationExamples {
  request?: unknown;
  responses?: Record<string, unknown>;
}

export const EXAMPLES: Record<string, OperationExamples> = {};
