import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { OperationDoc } from '@railyard/api-schema';

/** What a handler is given besides its input: its dependencies, the caller, and the exchange itself. */
export interface RouteContext<D> {
  deps: D;
  /** The token's name (the actor recorded on events); "undefined" on public operations. */
  actor: string;
  correlationId: string;
  req: Request;
  res: Response;
}

/**
 * One endpoint, declared once: what the OpenAPI document says of it (path, method, scope, request and
 * response schemas, summary) and how it is served. `operationsRouter` turns a list of them into routes
 * with the token check, the body, the 405 for other methods; `openApiDocument` into the document.
 */
export interface Operation<D, S extends z.ZodType = z.ZodType, I = z.output<S>> extends OperationDoc {
  request?: OperationDoc['request'] & { schema: S };
  /** Answered ahead of the rate limit and the body budget (buildApp's own operations only: /healthz, a probe is never refused). */
  unlimited?: boolean;
  /** How the caller is checked when a token of `scope` is not the only way in (check logs take a dashboard session too). */
  auth?: (deps: D) => RequestHandler;
  /** How the body is read when JSON is not the only form (uploadTestResults takes XML and gzip too). */
  body?: RequestHandler;
  /** The handler's input when it is not the JSON body parsed with `request.schema` (query strings, raw bodies, a faster check). */
  input?(req: Request): I;
  /** The answer: what it returns is sent as JSON (a JsonText as it is), unless it has answered itself. */
  handle(input: I, ctx: RouteContext<D>): unknown;
}

/** An operation of any dependencies: what the document and the tests read. */
export type AnyOperation = Operation<never>;

/**
 * Types one operation over dependencies `D`: `handle` gets what its request schema (or `input`)
 * produces. Used as `const operation = operationOf<ApiDeps>();` then `operation({ ... })`.
 */
export const operationOf =
  <D>() =>
  <S extends z.ZodType = z.ZodType<undefined>, I = z.output<S>>(op: Operation<D, S, I>): Operation<D> =>
    op;
