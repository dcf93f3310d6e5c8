import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import contract from './contract.json';

/**
 * Trunk's published v1 contract (contract.json, copied from its OpenAPI document by
 * scripts/extract-trunk-contract.ts): what Trunk's schema accepts as a request and documents as an
 * answer, for every merge-queue and flaky-tests operation Railyard serves under the same path.
 */

type Schema = Record<string, unknown>;

interface Documented {
  mediaType: string | null;
  schema?: Schema;
}

interface Described {
  method: string;
  path: string;
  request?: Schema;
  responses: Record<string, Documented>;
}

export interface TrunkOperation {
  /** Trunk's path without `/v1/`: `getQueue`, `flaky-tests/list-unhealthy-tests`. */
  name: string;
  method: string;
  /** Railyard's path of it: `/v1/getQueue`. */
  path: string;
  /** Whether Trunk documents a JSON request body (getMergeQueueMetrics, a GET, has none). */
  takesBody: boolean;
  /** Whether Trunk's request schema accepts `body` (always true for an operation without one). */
  acceptsRequest(body: unknown): boolean;
  /** What in `body` Trunk's schema of a JSON answer with this status refuses; undefined when it fits or no schema is given. */
  answerProblem(status: number, body: unknown): string | undefined;
  /** Whether Trunk documents a JSON schema for a 200 of this operation. */
  documentsAnswer: boolean;
  /** Every field Trunk requires in a 200 answer, nested ones under required parents too: `enqueuedPullRequests[].prNumber`. */
  requiredAnswerFields: readonly string[];
  /** Of `requiredAnswerFields`, those a 200 answer `body` lacks or gives a type or value Trunk's schema refuses. */
  refusedAnswerFields(body: unknown): string[];
}

/** The commit of trunk-io/docs2 the contract was copied from. */
export const TRUNK_CONTRACT_COMMIT: string = contract.source.commit;

/**
 * Ajv (about 85 modules) is required on the first validation, not imported: a schema is only compiled
 * when a Trunk-shaped request is refused or an answer checked, and every server start would pay for it
 * otherwise (docs/benchmarks.md, "Test suite time").
 */
let ajvInstance: Ajv2020 | undefined;
const ajv = (): Ajv2020 => {
  if (!ajvInstance) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { default: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    /* eslint-enable @typescript-eslint/no-require-imports */
    ajvInstance = new Ajv({ strict: false, allErrors: true });
    addFormats(ajvInstance);
  }
  return ajvInstance;
};

const compiled = new Map<Schema, ValidateFunction>();
const validatorOf = (schema: Schema): ValidateFunction => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
};

/** The required fields of `schema` and, below each, its own required fields; array items are `[]`. */
const requiredFieldsOf = (schema: Schema | undefined, prefix = ''): string[] => {
  if (!schema) return [];
  if (schema.type === 'array') return requiredFieldsOf(schema.items as Schema | undefined, `${prefix}[]`);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties)
    .filter(([key]) => required.has(key))
    .flatMap(([key, sub]) => {
      const field = prefix ? `${prefix}.${key}` : key;
      return [field, ...requiredFieldsOf(sub, field)];
    });
};

/** ajv's `/tests/0/status/value` as a field: `tests[].status.value`; a missing property is the field it names. */
const fieldOf = (error: ErrorObject): string => {
  const parts = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  return parts.reduce((field, part) => (/^\d+$/.test(part) ? `${field}[]` : field ? `${field}.${part}` : part), '').replace(/(\[\])+$/, '');
};

const operationOf = (name: string, d: Described): TrunkOperation => {
  const answer = d.responses['200']?.mediaType === 'application/json' ? d.responses['200'].schema : undefined;
  const requiredAnswerFields = requiredFieldsOf(answer);
  return {
    name,
    method: d.method,
    path: d.path,
    takesBody: d.request !== undefined,
    acceptsRequest: (body) => (d.request ? validatorOf(d.request)(body) : true),
    answerProblem: (status, body) => {
      const schema = d.responses[String(status)]?.schema;
      if (!schema || d.responses[String(status)]?.mediaType !== 'application/json') return undefined;
      const validate = validatorOf(schema);
      return validate(body) ? undefined : ajv().errorsText(validate.errors, { dataVar: 'answer' });
    },
    documentsAnswer: answer !== undefined,
    requiredAnswerFields,
    refusedAnswerFields: (body) => {
      if (!answer) return [];
      const validate = validatorOf(answer);
      if (validate(body)) return [];
      const refused = new Set((validate.errors ?? []).map(fieldOf));
      return requiredAnswerFields.filter((field) => refused.has(field));
    },
  };
};

export const TRUNK_OPERATIONS: readonly TrunkOperation[] = Object.entries(contract.operations as Record<string, Described>).map(
  ([name, d]) => operationOf(name, d),
);

// Paths as express matches them (case-insensitive, docs/api.md "Paths").
const byRoute = new Map(TRUNK_OPERATIONS.map((op) => [`${op.method} ${op.path.toLowerCase()}`, op]));

/** Trunk's operation served at `method` and `path` (one of Railyard's operation paths), if Trunk has one there. */
export const trunkOperationAt = (method: string, path: string): TrunkOperation | undefined =>
  byRoute.get(`${method.toLowerCase()} ${path.toLowerCase()}`);
