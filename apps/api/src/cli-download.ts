import { existsSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import { ApiError } from './http/errors';

/**
 * Where the one-file CLI is: `npm run build` puts it at dist/cli/railyard.cjs beside the compiled
 * server, `npm run build:cli` at dist-cli/railyard.cjs in a checkout running from its sources.
 */
const CANDIDATES = [path.resolve(__dirname, '../../../cli/railyard.cjs'), path.resolve(__dirname, '../../../dist-cli/railyard.cjs')];

/**
 * GET /cli/railyard.cjs: the CLI a CI job fetches from the server it talks to, so the job needs
 * neither the repository nor an install (`curl -fsSo railyard.cjs "$RAILYARD_URL/cli/railyard.cjs"`).
 * Public, as the CLI holds no secret; the rate limit in front of it applies.
 */
export const cliDownloadRouter = (candidates: readonly string[] = CANDIDATES): Router => {
  const router = Router();
  router.get('/cli/railyard.cjs', (_req, res, next) => {
    const file = candidates.find((f) => existsSync(f));
    if (file === undefined)
      return next(new ApiError(404, 'CLI_NOT_BUILT', 'this server has no CLI bundle: run npm run build (or npm run build:cli)'));
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.sendFile(file, (err) => err && next(err));
  });
  return router;
};
