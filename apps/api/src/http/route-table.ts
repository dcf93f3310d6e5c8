import type { Express, RequestHandler, Router } from 'express';
import { dispatchedRouters } from './dispatch';

/** One route the app answers: a method (or `all`, for the 405 answers) and the path in OpenAPI's template syntax. */
export interface RegisteredRoute {
  method: string;
  path: string;
}

interface Layer {
  handle: RequestHandler & { stack?: Layer[] };
  rawPath?: string;
  slash?: boolean;
  route?: { path: string; methods: Record<string, boolean> };
}

const template = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

const walk = (layers: Layer[], prefix: string, into: RegisteredRoute[]): void => {
  for (const layer of layers) {
    const here = layer.slash || layer.rawPath === undefined ? prefix : `${prefix}${layer.rawPath}`;
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods))
        into.push({ method: method === '_all' ? 'all' : method, path: template(`${prefix}${layer.route.path}`) });
      continue;
    }
    if (Array.isArray(layer.handle.stack)) walk(layer.handle.stack, here, into);
    const routers: Router[] | undefined = dispatchedRouters.get(layer.handle);
    for (const router of routers ?? []) walk((router as unknown as { stack: Layer[] }).stack, here, into);
  }
};

/**
 * Every route an express app answers, found by walking its router stack (mounted routers and the
 * /v1 dispatcher included). Plain middleware (static files, parsers) is not a route.
 */
export const registeredRoutes = (app: Express): RegisteredRoute[] => {
  const routes: RegisteredRoute[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', routes);
  return routes;
};
