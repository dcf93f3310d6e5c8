import { createReadStream, promises as fs } from 'node:fs';
import type { Response, Router } from 'express';
import type { TokenRegistry } from '@railyard/auth';
import {
  ciLogBlobName,
  ciLogFile,
  isExpiredLog,
  isValidCheckName,
  isValidTestRunId,
  localLogIsAttempt,
  runningAttemptOf,
} from '@railyard/ci';
import { requireToken } from '../auth/middleware';
import type { CiHttpDeps } from '../ci/deps';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { pathParam } from '../openapi/parameters';
import { operationsRouter } from '../http/operations-router';
import { RUN_ID } from '../openapi/examples';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };

const operation = operationOf<{ tokens: TokenRegistry; ci: CiHttpDeps }>();

/**
 * A local CI check's output as plain text, also while it runs (what is written so far). These are the
 * URLs the local CI gives its statuses. A finished check's log comes from the blob store, whichever
 * node ran it; a running one's from this node's data dir when this node runs it, else the archive's
 * note saying it is running (docs/operations.md, "CI logs").
 */
export const ciLogOperations = [
  operation({
    method: 'get',
    path: '/ci/logs/{testRunId}/{check}',
    operationId: 'getCheckLog',
    tag: 'CI pages',
    summary: "A local CI check's output so far, as plain text",
    scope: 'read',
    auth: ({ tokens, ci }) => (ci.sessions ? ci.sessions.tokenOrSession('read') : requireToken(tokens, 'read')),
    parameters: [pathParam('testRunId', 'the test run id', RUN_ID), pathParam('check', 'the check name, as in .railyard.yml', 'test')],
    response: { description: 'The log', mediaType: 'text/plain', text: '$ npm test\n> 42 passed\n' },
    errors: [400, 404, 410],
    handle: async (_input, { deps: { ci }, req, res }) => {
      const { testRunId, check } = req.params as { testRunId: string; check: string };
      if (!isValidTestRunId(testRunId))
        throw new ApiError(400, 'VALIDATION_FAILED', 'testRunId must be letters, digits, - and _', [
          { field: 'testRunId', message: 'invalid' },
        ]);
      if (!isValidCheckName(check))
        throw new ApiError(400, 'VALIDATION_FAILED', 'not a valid check name', [{ field: 'check', message: 'invalid' }]);
      const archived = ci.logs ? await ci.logs.getNamed(ciLogBlobName(testRunId, check)) : null;
      // Swept by retention (D296): said so, not "never was". The runner's node may still have its file,
      // which is not served either: every node answers alike.
      if (archived && isExpiredLog(archived))
        throw new ApiError(
          410,
          'LOG_EXPIRED',
          `the log of check ${JSON.stringify(check)} of test run ${testRunId} expired under the retention setting`,
        );
      const running = archived && runningAttemptOf(archived);
      if (archived && !running) {
        res.status(200).set(TEXT).end(archived);
        return;
      }
      const file = ciLogFile(ci.dataDir, testRunId, check);
      const stat = await fs.stat(file).catch(() => null);
      // With an archive, the local file is served only when it is the attempt running now (not one a dead runner left).
      if (stat?.isFile() && (!archived || (running && (await localLogIsAttempt(file, running))))) {
        await streamGrowingFile(res, file, stat.size);
        return;
      }
      if (archived) {
        res.status(200).set(TEXT).end(archived);
        return;
      }
      throw new ApiError(404, 'LOG_NOT_FOUND', `no log for check ${JSON.stringify(check)} of test run ${testRunId}`);
    },
  }),
];

/** The log route alone over `deps.tokens` and `ci`, for an app of its own. */
export const ciLogRoutes = (deps: Pick<ApiDeps, 'tokens'>, ci: CiHttpDeps): Router =>
  operationsRouter(ciLogOperations, { tokens: deps.tokens, ci });

/** Only what exists now: a running check's log is still growing, and the answer must end. */
const streamGrowingFile = async (res: Response, file: string, size: number): Promise<void> => {
  res.status(200).set(TEXT);
  await new Promise<void>((resolve) => {
    const stream = createReadStream(file, { start: 0, end: Math.max(0, size - 1) });
    if (size === 0) stream.destroy();
    stream.on('error', () => res.destroy());
    stream.on('close', () => resolve());
    res.on('close', () => resolve());
    if (size === 0) res.end();
    else stream.pipe(res);
  });
};
