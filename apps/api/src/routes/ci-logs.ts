import { createReadStream, promises as fs } from 'node:fs';
import { Router } from 'express';
import { ciLogFile, isValidCheckName, isValidTestRunId } from '@railyard/ci';
import { requireToken } from '../auth/middleware';
import type { CiHttpDeps } from '../ci/deps';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';

/**
 * `GET /ci/logs/<testRunId>/<check>`: a local CI check's output as plain text, also while it runs
 * (what is written so far). These are the URLs the local CI gives its statuses.
 */
export const ciLogRoutes = (deps: ApiDeps, ci: CiHttpDeps): Router => {
  const router = Router();
  router.get(
    '/ci/logs/:testRunId/:check',
    ci.sessions ? ci.sessions.tokenOrSession('read') : requireToken(deps.tokens, 'read'),
    async (req, res) => {
      const { testRunId, check } = req.params as { testRunId: string; check: string };
      if (!isValidTestRunId(testRunId))
        throw new ApiError(400, 'VALIDATION_FAILED', 'testRunId must be letters, digits, - and _', [
          { field: 'testRunId', message: 'invalid' },
        ]);
      if (!isValidCheckName(check))
        throw new ApiError(400, 'VALIDATION_FAILED', 'not a valid check name', [{ field: 'check', message: 'invalid' }]);
      const file = ciLogFile(ci.dataDir, testRunId, check);
      const stat = await fs.stat(file).catch(() => null);
      if (!stat?.isFile()) throw new ApiError(404, 'LOG_NOT_FOUND', `no log for check ${JSON.stringify(check)} of test run ${testRunId}`);
      res
        .status(200)
        .set({ 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
      // Only what exists now: a running check's log is still growing, and the answer must end.
      await new Promise<void>((resolve) => {
        const stream = createReadStream(file, { start: 0, end: Math.max(0, stat.size - 1) });
        if (stat.size === 0) stream.destroy();
        stream.on('error', () => res.destroy());
        stream.on('close', () => resolve());
        res.on('close', () => resolve());
        if (stat.size === 0) res.end();
        else stream.pipe(res);
      });
    },
  );
  return router;
};
