import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { TokenRegistry } from '@railyard/auth';
import { requireToken } from '../auth/middleware';
import { trunkOperationAt, type TrunkOperation } from '../trunk/contract';
import { ApiError, toApiError } from './errors';
import { jsonBody } from './json-body';
import { JsonText } from './json-text';
import type { Operation } from './operation';
import { parseBody } from './validate';

/** `/ci/logs/{testRunId}/{check}` (OpenAPI's template) as express writes it: `/ci/logs/:testRunId/:check`. */
const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * A path as express matches routes by default (case-insensitive, one trailing slash optional), so
 * `/v1/GetQueue` and `/v1/getQueue/` find the same operation here as on express's own chain
 * (docs/api.md, "Paths").
 */
const routeKey = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();

const methodNotAllowed =
  (allow: string): RequestHandler =>
  (req, _res, next) =>
    next(new ApiError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allow}`, undefined, { Allow: allow }));

/**
 * A request Trunk's published schema accepts is never answered 400 (docs/api.md, "Errors"): when
 * Railyard refuses a value of such a request (a repository name the git host cannot serve, a
 * priority name it does not know), the refusal is a 422 with the same code and fields.
 */
const asTrunkRefusal = (err: unknown, trunk: TrunkOperation, body: unknown): unknown => {
  const known = toApiError(err);
  if (known?.status !== 400 || !trunk.takesBody || !trunk.acceptsRequest(body)) return err;
  return new ApiError(422, known.code, known.message, known.fields, known.headers);
};

/** Token (or the operation's own check), body, input, handler, answer: one operation's chain. */
const chainOf = <D extends { tokens: TokenRegistry }>(op: Operation<D>, deps: D): RequestHandler[] => {
  const chain: RequestHandler[] = [];
  if (op.scope !== 'public') chain.push(op.auth ? op.auth(deps) : requireToken(deps.tokens, op.scope));
  if (op.body) chain.push(op.body);
  else if (op.request) chain.push(jsonBody);
  const request = op.request;
  const trunk = trunkOperationAt(op.method, op.path);
  const run = async (req: Request, res: Response): Promise<unknown> => {
    const input = op.input ? op.input(req) : request ? parseBody(request.schema, req.body) : undefined;
    const ctx = { deps, actor: String(res.locals.actor), correlationId: String(res.locals.requestId), req, res };
    return op.handle(input, ctx);
  };
  chain.push(async (req, res) => {
    let answer: unknown;
    try {
      answer = await run(req, res);
    } catch (err) {
      throw trunk ? asTrunkRefusal(err, trunk, req.body) : err;
    }
    if (res.headersSent) return;
    // The same headers res.json sets; the text is already the JSON it would write.
    if (answer instanceof JsonText) res.status(200).type('application/json').send(answer.text);
    else res.status(200).json(answer ?? {});
  });
  return chain;
};

/**
 * The routes of `operations` over `deps`: each path answers its methods and a 405 naming them for any
 * other. A request for a path without parameters goes straight to that path's routes: express would
 * otherwise try every route in turn, most of the CPU of a cheap read with forty of them.
 */
export const operationsRouter = <D extends { tokens: TokenRegistry }>(operations: readonly Operation<D>[], deps: D): Router => {
  const byPath = new Map<string, Operation<D>[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  const exact = new Map<string, Router>();
  const withParameters = Router();
  for (const [path, ops] of byPath) {
    const router = path.includes('{') ? withParameters : Router();
    for (const op of ops) router[op.method](expressPath(path), ...chainOf(op, deps));
    router.all(expressPath(path), methodNotAllowed(ops.map((op) => op.method.toUpperCase()).join(', ')));
    if (router !== withParameters) exact.set(routeKey(path), router);
  }
  const dispatch: RequestHandler = (req, res, next) => {
    const router = exact.get(routeKey(req.path));
    if (router) router(req, res, next);
    else next();
  };
  return Router().use(dispatch, withParameters);
};
