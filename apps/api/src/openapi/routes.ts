import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { apiDocument } from './document';

const PAGE_DIR = path.join(__dirname, 'docs-page');
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// Only what the page loads: the package also ships a demo page that points at a public example API.
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

// Swagger UI sets styles inline and draws its icons as data: images; everything else comes from here.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

const only =
  (names: Set<string>, handler: RequestHandler): RequestHandler =>
  (req, res, next) =>
    names.has(req.path.slice(1)) ? handler(req, res, next) : next();

/**
 * `/openapi.json` and `/docs`: the document, and Swagger UI rendering it, its assets served from the
 * installed swagger-ui-dist package (no CDN: self-hosted servers often have no internet).
 */
export const apiDocsRouter = (): Router => {
  const router = Router();
  const page = readFileSync(path.join(PAGE_DIR, 'index.html'), 'utf8');
  // Built on first request, not at start: generating it costs a few hundred ms a process need not wait for.
  router.get('/openapi.json', (_req, res) => {
    res.json(apiDocument());
  });
  // /docs and /docs/ alike: the page's links are relative to the root, so both resolve them the same way.
  router.get('/docs', (req, res) => {
    if (req.originalUrl.split('?')[0]?.endsWith('/')) return res.redirect(301, '../docs');
    res.status(200).type('html').set({ 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' }).send(page);
  });
  const assets = { index: false, fallthrough: true, maxAge: '1h' } as const;
  router.use('/docs/assets', only(new Set(['init.js']), express.static(PAGE_DIR, assets)));
  router.use('/docs/assets', only(SWAGGER_FILES, express.static(SWAGGER_DIR, assets)));
  return router;
};
