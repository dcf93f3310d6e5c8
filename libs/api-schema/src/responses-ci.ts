import { HOST_PROBLEM_CODES } from '@railyard/domain';
import { z } from 'zod';
import { repoSchema } from './common';

/** What the CI endpoints answer (statuses, test-run details, the local host's PR pages). */

const time = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const statusState = z.enum(['pending', 'success', 'failure', 'error']);

export const commitStatusSchema = z.object({
  context: z.string(),
  state: statusState,
  targetUrl: z.string().optional(),
  description: z.string().optional(),
  reporter: z
    .string()
    .optional()
    .describe('who reported it: local-ci, token:<name>, cli; absent for statuses recorded before reporters were (docs/security.md)'),
  createdAt: time.describe('when this context first reported on this commit'),
  updatedAt: time.describe('when it last reported'),
});

export const setCommitStatusResponseSchema = z.object({ repo: repoSchema, sha: z.string(), status: commitStatusSchema });

export const getCommitStatusesResponseSchema = z.object({
  repo: repoSchema,
  sha: z.string(),
  state: z.enum(['failure', 'success', 'pending']).describe("GitHub's combined state: failure if any failed, success if all passed"),
  statuses: z.array(commitStatusSchema),
});

const checkRunSchema = z.object({
  name: z.string(),
  url: z.string(),
  status: z.enum(['QUEUED', 'IN_PROGRESS', 'COMPLETED']),
  conclusion: z.enum(['SUCCESS', 'FAILURE', 'CANCELLED', 'TIMED_OUT']).optional(),
});

/** The spec's Test run object, plus the run's id. */
export const testingDetailsResponseSchema = z.object({
  testRunId: z.string(),
  requiredStatuses: z.array(z.string()),
  requiredStatusesSource: z.enum(['trunk_config', 'repo_provider_branch_protection', 'merge_instance']),
  testBranch: z.string(),
  testBranchSha: z.string(),
  checkSuites: z.array(z.object({ name: z.string(), checkRuns: z.array(checkRunSchema) })),
  statusChecks: z.array(
    z.object({ context: z.string(), url: z.string().optional(), state: z.enum(['PENDING', 'SUCCESS', 'FAILURE', 'ERROR']) }),
  ),
  testedPullRequests: z.array(z.object({ prNumber: z.number().int(), prUrl: z.string(), title: z.string() })),
  createdAt: time,
  status: z.enum(['in_progress', 'succeeded', 'failed', 'cancelled']),
  dependentPrs: z.array(z.number().int()),
  impactedTargets: z.array(z.string()).optional(),
  impactedTargetsForTestedPrs: z.array(z.string()).optional(),
});

/** A PR of the local git host, as `GET /repos/…/pulls/N` shows it. */
export const pullRequestPageSchema = z.object({
  number: z.number().int().min(1),
  title: z.string(),
  author: z.string(),
  headSha: z.string(),
  baseBranch: z.string(),
  headBranch: z.string().optional().describe('the branch the PR comes from, when it was opened from one'),
  state: z.enum(['open', 'closed', 'merged']),
  mergeability: z.enum(['unspecified', 'in_progress', 'mergeable', 'not_mergeable']),
});

export const healthResponseSchema = z.object({ status: z.literal('ok') });

/** GET /readyz: the same body with 200 (ready) and 503 (not ready). */
export const readinessResponseSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  projector: z.object({
    running: z.boolean().describe('a projector holds the projector lease (always true in the embedded shape)'),
    holder: z
      .string()
      .nullable()
      .optional()
      .describe("the lease holder's id (host:pid:…), `in-process` when embedded, null when none; only for a caller with a token"),
  }),
  projectionLag: z.object({
    behind: z.boolean().describe('the event store holds events the read models have not applied'),
    seconds: z.number().min(0).describe('age of the oldest event not yet applied; 0 when caught up'),
    maxSeconds: z.number().describe('RAILYARD_PROJECTION_MAX_LAG_MS in seconds: the lag past which the API is not ready'),
    checkpoint: z.string().nullable().describe('position of the last event the read models applied'),
    head: z.string().nullable().describe('position of the last event stored'),
  }),
  problems: z
    .array(z.object({ code: z.enum(['PROJECTOR_UNAVAILABLE', 'READ_MODELS_BEHIND']), message: z.string() }))
    .describe('why the API is not ready; empty when ready'),
  hostProblems: z
    .array(
      z.object({
        code: z.enum(HOST_PROBLEM_CODES),
        since: z.string().describe('when the engine first reported it'),
        repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }).optional().describe('only for a caller with a token'),
        branch: z.string().optional().describe('only for a caller with a token'),
        detail: z.string().optional().describe('only for a caller with a token'),
      }),
    )
    .describe('queues the engine cannot drive; listed, but they do not make the API unready'),
});
