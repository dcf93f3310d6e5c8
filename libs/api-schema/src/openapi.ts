import { z } from 'zod';
import { errorResponseSchema } from './responses';

/** Who may call an operation: a token scope (scopes nest: admin ⊃ write ⊃ read), or nobody needs a token. */
export type OperationScope = 'read' | 'write' | 'admin' | 'public';

export interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string;
  schema: z.ZodType;
  example?: unknown;
}

export interface BodyDoc {
  /** Components get this name; one schema object used by several operations is described once. */
  name: string;
  schema: z.ZodType;
  example?: unknown;
}

/** One HTTP operation as the document describes it; apps/api lists every route it serves with one. */
export interface OperationDoc {
  method: 'get' | 'post';
  /** OpenAPI path template, from the root: `/v1/getQueue`, `/ci/logs/{testRunId}/{check}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  scope: OperationScope;
  parameters?: ParameterDoc[];
  request?: BodyDoc & { alternatives?: Record<string, { description: string }> };
  response: {
    description: string;
    body?: BodyDoc;
    mediaType?: 'application/json' | 'text/plain' | 'text/html';
    text?: string;
    /** A 503 that carries the same body as the 200 (a readiness report), instead of the Error object. */
    unavailable?: { description: string; example: unknown };
  };
  /** Error statuses the operation answers besides those implied by its scope and body (401/403, 400/413/415/503, 429, 500). */
  errors?: ErrorStatus[];
}

export type ErrorStatus = 400 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

export interface TagDoc {
  name: string;
  description: string;
}

/** Each error status: its component name and the codes it carries (docs/api.md lists them too). */
const ERRORS: Record<number, { name: string; description: string; example: { code: string; message: string } }> = {
  400: {
    name: 'BadRequest',
    description:
      'The request is invalid (VALIDATION_FAILED with `fields`, MALFORMED_JSON, INVALID_ARGUMENT, INVALID_PAGE_SIZE, INVALID_PAGE_TOKEN, …). Nothing was changed.',
    example: { code: 'VALIDATION_FAILED', message: 'invalid request: targetBranch: targetBranch must not be empty' },
  },
  401: {
    name: 'Unauthorized',
    description: 'No token (AUTHENTICATION_REQUIRED) or an unknown one (INVALID_TOKEN).',
    example: { code: 'AUTHENTICATION_REQUIRED', message: 'the x-api-token header is missing' },
  },
  403: {
    name: 'Forbidden',
    description: "The token's scope does not allow the operation (INSUFFICIENT_PERMISSIONS).",
    example: { code: 'INSUFFICIENT_PERMISSIONS', message: 'token "dashboard" has scope read; this endpoint needs write' },
  },
  404: {
    name: 'NotFound',
    description:
      'QUEUE_NOT_FOUND, PR_NOT_FOUND (not on the git host), PR_NOT_IN_QUEUE, TEST_RUN_NOT_FOUND, TEST_NOT_FOUND, REPO_NOT_FOUND (not on its code host, or a GitHub repository the App is not installed on), COMMIT_NOT_FOUND, LOG_NOT_FOUND.',
    example: { code: 'QUEUE_NOT_FOUND', message: 'no queue exists for this repository and branch' },
  },
  405: {
    name: 'MethodNotAllowed',
    description: 'The path exists with another method (METHOD_NOT_ALLOWED); the `Allow` header names it.',
    example: { code: 'METHOD_NOT_ALLOWED', message: 'GET is not allowed here; use POST' },
  },
  409: {
    name: 'Conflict',
    description:
      'A rule of the queue refuses the command: QUEUE_ALREADY_EXISTS, QUEUE_NOT_EMPTY, QUEUE_NOT_ACCEPTING_SUBMISSIONS, MODE_CHANGE_IN_PROGRESS, PR_NOT_OPEN, PR_NOT_IN_ACTIVE_STATE, PR_TESTS_NOT_RESTARTABLE.',
    example: { code: 'PR_NOT_IN_ACTIVE_STATE', message: 'PR #12 is merged' },
  },
  410: {
    name: 'Gone',
    description:
      'It existed and was removed under the retention setting (LOG_EXPIRED: a check log older than RAILYARD_CI_RETENTION_DAYS). Asking again will not bring it back.',
    example: { code: 'LOG_EXPIRED', message: 'the log of check "test" of test run 3f2c expired under the retention setting' },
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is over the 20 MiB limit (PAYLOAD_TOO_LARGE).',
    example: { code: 'PAYLOAD_TOO_LARGE', message: 'the request body is over the 20 MiB limit' },
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The body is not in a media type the operation reads (UNSUPPORTED_MEDIA_TYPE, UNSUPPORTED_ENCODING, UNSUPPORTED_CHARSET).',
    example: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'send the body as application/json' },
  },
  422: {
    name: 'UnprocessableContent',
    description:
      "The request fits Trunk's published schema of the operation, but a value is one Railyard cannot act on (a repository name the git host cannot serve, an unknown priority name, a page token this server did not issue): the code and `fields` a 400 would carry. Nothing was changed.",
    example: {
      code: 'VALIDATION_FAILED',
      message: 'invalid request: priority: priority must be an integer 0-255 or one of urgent, high, medium, low',
    },
  },
  429: {
    name: 'TooManyRequests',
    description:
      "The token is over RAILYARD_RATE_LIMIT_PER_SECOND, or an address over RAILYARD_RATE_LIMIT_UNAUTHENTICATED_PER_SECOND failed authentications (a well-formed token that is no known one) (RATE_LIMIT_EXCEEDED); wait the `Retry-After` header's seconds.",
    example: { code: 'RATE_LIMIT_EXCEEDED', message: 'token "ci" is over 5 requests per second' },
  },
  500: {
    name: 'InternalError',
    description: 'A fault of the server (INTERNAL_ERROR); the message carries the request id to find it in the logs.',
    example: { code: 'INTERNAL_ERROR', message: 'internal error (request 0d1c9a4e-7f0e-4bb8-9c44-3f0b3c1f6a2e)' },
  },
  503: {
    name: 'Unavailable',
    description:
      'The server cannot answer this now: no projector runs (PROJECTOR_UNAVAILABLE) or the read models lag past RAILYARD_PROJECTION_MAX_LAG_MS (READ_MODELS_BEHIND), in both cases before anything was stored; a dependency is down, such as the code host of the repository for test health (CODE_HOST_UNAVAILABLE); or the request bodies in flight are at RAILYARD_BODY_MIB_IN_FLIGHT (SERVER_BUSY, the body unread). Retry after the `Retry-After` header when present.',
    example: {
      code: 'PROJECTOR_UNAVAILABLE',
      message: 'no projector holds the projector lease: the read models are not being updated; nothing was changed, try again later',
    },
  },
};

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema, without the keywords a component must not carry. */
export const jsonSchemaOf = (schema: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _s, $id: _i, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Json;
  const text = JSON.stringify(rest);
  // A $ref would resolve against the document, not the schema: every schema must come out whole.
  if (text.includes('"$ref"') || text.includes('"$defs"')) throw new Error('a schema converted with references; inline it');
  return rest;
};

const scopeText: Record<OperationScope, string> = {
  public: 'No token needed.',
  read: 'Needs a token with the read scope (or write, or admin).',
  write: 'Needs a token with the write scope (or admin).',
  admin: 'Needs a token with the admin scope.',
};

const errorStatuses = (op: OperationDoc): number[] => {
  const statuses = new Set<number>(op.errors ?? []);
  if (op.scope !== 'public') [401, 403, 429].forEach((s) => statuses.add(s));
  if (op.request) [400, 413, 415, 503].forEach((s) => statuses.add(s));
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
};

/**
 * The OpenAPI 3.1 document of every operation given, generated from the same zod schemas that
 * validate requests and describe answers. Schemas become components, named once each.
 */
export const openApiDocument = (
  operations: readonly OperationDoc[],
  meta: { version: string; tags: readonly TagDoc[]; description: string },
): Json => {
  const schemas: Record<string, Json> = { Error: jsonSchemaOf(errorResponseSchema, 'output') };
  const named = new Map<z.ZodType, string>();
  const component = (body: BodyDoc, io: 'input' | 'output'): Json => {
    const key = named.get(body.schema) ?? body.name;
    if (!named.has(body.schema)) {
      if (schemas[key]) throw new Error(`two schemas are both named ${key}`);
      schemas[key] = jsonSchemaOf(body.schema, io);
      named.set(body.schema, key);
    }
    return { $ref: `#/components/schemas/${key}` };
  };
  const used = new Set<number>();
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) {
    const responses: Json = {};
    const res = op.response;
    const mediaType = res.mediaType ?? 'application/json';
    responses['200'] = {
      description: res.description,
      content: {
        [mediaType]: {
          schema: res.body ? component(res.body, 'output') : { type: 'string' },
          ...(res.body?.example !== undefined ? { example: res.body.example } : res.text !== undefined ? { example: res.text } : {}),
        },
      },
    };
    if (res.unavailable && res.body)
      responses['503'] = {
        description: res.unavailable.description,
        content: { [mediaType]: { schema: component(res.body, 'output'), example: res.unavailable.example } },
      };
    for (const status of errorStatuses(op)) {
      if (status === 503 && responses['503']) continue;
      used.add(status);
      responses[String(status)] = { $ref: `#/components/responses/${ERRORS[status]?.name}` };
    }
    const operation: Json = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: [op.description, scopeText[op.scope]].filter(Boolean).join('\n\n'),
      ...(op.scope === 'public' ? { security: [] } : {}),
      ...(op.parameters?.length
        ? {
            parameters: op.parameters.map((p) => ({
              name: p.name,
              in: p.in,
              required: p.required,
              description: p.description,
              schema: jsonSchemaOf(p.schema, 'input'),
              ...(p.example !== undefined ? { example: p.example } : {}),
            })),
          }
        : {}),
      ...(op.request
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: component(op.request, 'input'),
                  ...(op.request.example !== undefined ? { example: op.request.example } : {}),
                },
                ...Object.fromEntries(
                  Object.entries(op.request.alternatives ?? {}).map(([type, alt]) => [
                    type,
                    { schema: { type: 'string', contentMediaType: type, description: alt.description } },
                  ]),
                ),
              },
            },
          }
        : {}),
      responses,
    };
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method]: operation };
  }
  const responses = Object.fromEntries(
    [...used]
      .sort((a, b) => a - b)
      .map((status) => {
        const e = ERRORS[status] as (typeof ERRORS)[number];
        const retry = status === 429 || status === 503;
        return [
          e.name,
          {
            description: e.description,
            ...(retry
              ? { headers: { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' } } } }
              : {}),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: e.example } } },
          },
        ];
      }),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Railyard merge queue API',
      version: meta.version,
      description: meta.description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'this Railyard server' }],
    security: [{ ApiToken: [] }],
    tags: meta.tags.map((t) => ({ name: t.name, description: t.description })),
    paths,
    components: {
      securitySchemes: {
        ApiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-token',
          description: 'An API token (RAILYARD_API_TOKENS, or the bootstrap admin token in the data dir).',
        },
      },
      schemas,
      responses,
    },
  };
};
