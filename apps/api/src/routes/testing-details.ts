import type { Request } from 'express';
import { z } from 'zod';
import { queueKeySchema, testingDetailsResponseSchema } from '@railyard/api-schema';
import { testRunIdFrom } from '@railyard/ci';
import { queueIdOf, type TargetsRef } from '@railyard/domain';
import type { BlobStore } from '@railyard/eventstore';
import type { CiOperationDeps } from '../ci/deps';
import { testingDetailsResponse } from '../ci/testing-details-view';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { REPO, RUN_ID } from '../openapi/examples';

const operation = operationOf<CiOperationDeps>();

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

// Impacted-target lists are stored once, by digest (see setImpactedTargets): one name a line.
const targetsLoader =
  (blobs: BlobStore) =>
  async (ref: TargetsRef): Promise<string[]> => {
    if (ref.count === 0) return [];
    const bytes = await blobs.get(ref.digest);
    if (bytes === null) throw new Error(`impacted-target list ${ref.digest} is missing from the blob store`);
    return bytes.toString('utf8').split('\n').filter(Boolean);
  };

export const testingDetailsOperations = [
  operation({
    method: 'post',
    path: '/v1/getMergeQueueTestingDetails',
    operationId: 'getMergeQueueTestingDetails',
    tag: 'Testing',
    summary: 'A test run: its branch, checks with their logs, and the PRs it tested',
    scope: 'read',
    request: {
      name: 'TestingDetailsRequest',
      schema: testingDetailsRequest,
      example: { repo: REPO, targetBranch: 'main', testRunId: RUN_ID },
    },
    response: { description: 'The test run', body: { name: 'TestRun', schema: testingDetailsResponseSchema } },
    errors: [404],
    handle: async (body, { deps, req }) => {
      const { ci } = deps;
      const testRunId = testRunIdFrom(body.testRunId.trim()) as string;
      const queueId = queueIdOf(body.repo, body.targetBranch);
      const run = await deps.readModels.getTestRun(queueId, testRunId);
      if (!run) {
        if (!(await deps.readModels.getQueue(queueId)))
          throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
        throw new ApiError(404, 'TEST_RUN_NOT_FOUND', `queue ${body.targetBranch} has no test run ${testRunId}`);
      }
      const baseUrl = ci.publicUrl ?? (ci.selfUrl?.() || requestBase(req));
      return testingDetailsResponse(run, { repo: body.repo, baseUrl, loadTargets: targetsLoader(deps.blobs) });
    },
  }),
];
