import { Router, type Request, type Response } from 'express';
import { requireToken } from '../auth/middleware';
import type { Scope } from '@railyard/auth';
import type { ApiDeps } from '../deps';
import { jsonBody } from '../http/json-body';
import { JsonText } from '../http/json-text';

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
    // The same headers res.json sets; the text is already the JSON it would write.
    if (answer instanceof JsonText) res.status(200).type('application/json').send(answer.text);
    else res.status(200).json(answer ?? {});
  });
};
