import { Router, type Request } from 'express';
import { z } from 'zod';
import { queueKeySchema } from '@railyard/api-schema';
import { testRunIdFrom } from '@railyard/ci';
import { queueIdOf, type TargetsRef } from '@railyard/domain';
import type { CiHttpDeps } from '../ci/deps';
import { testingDetailsResponse } from '../ci/testing-details-view';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { postRoute } from './route';

// Not strict: v1 clients may send more than the spec names.
export const testingDetailsRequest = queueKeySchema.extend({
  testRunId: z
    .string({ error: 'testRunId must be a string' })
    .max(300)
    .refine(
      (v) => testRunIdFrom(v.trim()) !== null,
      'testRunId must be a test run id (or the railyard-merge/pr-<n>/<id> branch it ran on)',
    ),
});

const requestBase = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

export const testingDetailsRoutes = (deps: ApiDeps, ci: CiHttpDeps): Router => {
  const router = Router();

  // Impacted-target lists are stored once, by digest (see setImpactedTargets): one name a line.
  const loadTargets = async (ref: TargetsRef): Promise<string[]> => {
    if (ref.count === 0) return [];
    const bytes = await deps.blobs.get(ref.digest);
    if (bytes === null) throw new Error(`impacted-target list ${ref.digest} is missing from the blob store`);
    return bytes.toString('utf8').split('\n').filter(Boolean);
  };

  postRoute(router, deps, '/getMergeQueueTestingDetails', 'read', async (raw, ctx) => {
    const body = parseBody(testingDetailsRequest, raw);
    const testRunId = testRunIdFrom(body.testRunId.trim()) as string;
    const queueId = queueIdOf(body.repo, body.targetBranch);
    const run = await deps.readModels.getTestRun(queueId, testRunId);
    if (!run) {
      if (!(await deps.readModels.getQueue(queueId)))
        throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      throw new ApiError(404, 'TEST_RUN_NOT_FOUND', `queue ${body.targetBranch} has no test run ${testRunId}`);
    }
    return testingDetailsResponse(run, { repo: body.repo, baseUrl: ci.publicUrl ?? (ci.selfUrl?.() || requestBase(ctx.req)), loadTargets });
  });

  return router;
};
