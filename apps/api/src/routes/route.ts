import { Router, type Request, type Response } from 'express';
import { requireToken } from '../auth/middleware';
import type { Scope } from '@railyard/auth';
import type { ApiDeps } from '../deps';
import { jsonBody } from '../http/json-body';

export interface RouteContext {
  actor: string;
  correlationId: string;
  req: Request;
  res: Response;
}

/** One POST endpoint: token and scope first, then the JSON body, then the handler's JSON answer. */
export const postRoute = (
  router: Router,
  deps: ApiDeps,
  path: string,
  scope: Scope,
  handler: (body: unknown, ctx: RouteContext) => Promise<unknown>,
): void => {
  router.post(path, requireToken(deps.tokens, scope), jsonBody, async (req, res) => {
    const ctx = { actor: String(res.locals.actor), correlationId: String(res.locals.requestId), req, res };
    const answer = await handler(req.body, ctx);
    res.status(200).json(answer ?? {});
  });
};
