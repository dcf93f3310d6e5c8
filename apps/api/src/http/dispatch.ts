import { Router, type RequestHandler } from 'express';

interface Layer {
  route?: { path?: unknown };
}

/** The routers behind each dispatcher, for the route table (docs/api.md: every route is documented). */
export const dispatchedRouters = new WeakMap<RequestHandler, Router[]>();

const isStatic = (path: unknown): path is string => typeof path === 'string' && !/[:*?(]/.test(path);

/**
 * Sends each request straight to the router that declares its exact path. Express would otherwise
 * try every route of every router in turn; with some forty /v1 endpoints that walk was a tenth of the
 * CPU of a cheap read. Routers whose paths have parameters stay on express's ordinary chain.
 */
export const dispatchByPath = (routers: Router[]): RequestHandler => {
  const byPath = new Map<string, Router[]>();
  const rest: Router[] = [];
  for (const router of routers) {
    const paths = ((router as unknown as { stack: Layer[] }).stack ?? []).map((l) => l.route?.path);
    if (paths.length === 0 || !paths.every(isStatic)) {
      rest.push(router);
      continue;
    }
    for (const p of new Set(paths)) byPath.set(p, [...(byPath.get(p) ?? []), router]);
  }
  const fallback = Router();
  if (rest.length) fallback.use(...rest);
  const chains = new Map([...byPath].map(([p, rs]) => [p, rs.length === 1 ? rs[0]! : Router().use(...rs)]));
  const dispatch: RequestHandler = (req, res, next) => {
    const chain = chains.get(req.path);
    // An error goes on to the error handlers; a plain "not mine" goes on to the other routers.
    if (chain)
      return chain(req, res, (err?: unknown) => (err && err !== 'route' && err !== 'router' ? next(err) : fallback(req, res, next)));
    fallback(req, res, next);
  };
  dispatchedRouters.set(dispatch, routers);
  return dispatch;
};
