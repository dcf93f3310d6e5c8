import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { operationOf } from '../http/operation';

const PAGE_DIR = path.join(__dirname, 'docs-page');
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// Only what the page loads: the package also ships a demo page that points at a public example API.
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

// Swagger UI sets styles inline and draws its icons as data: images; everything else comes from here.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

/** The document is handed in: it is generated from the operation table, which lists these two as well. */
export interface DocsDeps {
  document: () => Record<string, unknown>;
}

const operation = operationOf<DocsDeps>();

// Read when the module loads, so a server whose build lost the page fails at start, not on a request.
const PAGE = readFileSync(path.join(PAGE_DIR, 'index.html'), 'utf8');

/**
 * `/openapi.json` and `/docs`: the document, and Swagger UI rendering it, its assets served from the
 * installed swagger-ui-dist package (no CDN: self-hosted servers often have no internet).
 */
export const docsOperations = [
  operation({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Operations',
    summary: 'This document',
    scope: 'public',
    // Limited per source address like every route but /healthz (docs/api.md, "Limits").
    errors: [429],
    response: { description: 'The OpenAPI 3.1 document', body: { name: 'OpenApiDocument', schema: z.record(z.string(), z.unknown()) } },
    // Built on first request, not at start: generating it costs a few hundred ms a process need not wait for.
    handle: (_input, { deps }) => deps.document(),
  }),
  operation({
    method: 'get',
    path: '/docs',
    operationId: 'getApiDocs',
    tag: 'Operations',
    summary: 'This document as a browsable page (assets served by this server, no CDN)',
    scope: 'public',
    // Limited per source address like every route but /healthz (docs/api.md, "Limits").
    errors: [429],
    response: { description: 'An HTML page', mediaType: 'text/html', text: '<!doctype html>…' },
    // /docs and /docs/ alike: the page's links are relative to the root, so both resolve them the same way.
    handle: (_input, { req, res }) => {
      if (req.originalUrl.split('?')[0]?.endsWith('/')) return res.redirect(301, '../docs');
      res.status(200).type('html').set({ 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' }).send(PAGE);
    },
  }),
];

const only =
  (names: Set<string>, handler: RequestHandler): RequestHandler =>
  (req, res, next) =>
    names.has(req.path.slice(1)) ? handler(req, res, next) : next();

/** The page's script and Swagger UI's files under `/docs/assets/`: static files, not operations. */
export const docsAssetsRouter = (): Router => {
  const router = Router();
  const assets = { index: false, fallthrough: true, maxAge: '1h' } as const;
  router.use('/docs/assets', only(new Set(['init.js']), express.static(PAGE_DIR, assets)));
  router.use('/docs/assets', only(SWAGGER_FILES, express.static(SWAGGER_DIR, assets)));
  return router;
};
