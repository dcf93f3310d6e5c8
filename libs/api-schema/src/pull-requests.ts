import { z } from 'zod';
import { MAX_PRIORITY_VALUE, PR_STATES, PRIORITY_NAMES } from '@railyard/domain';
import { anyCaseEnum, branchNameSchema, commitShaSchema, prNumberSchema, queueKeySchema } from './common';

const prRef = (min = 0) => z.object({ number: prNumberSchema(min) });

export const prioritySchema = z.union([
  z.number().int('priority must be an integer 0-255 or one of urgent, high, medium, low').min(0).max(MAX_PRIORITY_VALUE),
  anyCaseEnum(PRIORITY_NAMES),
]);

export const submitPullRequestRequest = queueKeySchema.extend({
  pr: prRef(),
  priority: prioritySchema.nullish(),
  noBatch: z.boolean().optional(),
});
export const prActionRequest = queueKeySchema.extend({ pr: prRef() });
/** A PR by its number or by the branch it comes from (Trunk's newer document): one of the two, not both. */
export const getSubmittedPullRequestRequest = queueKeySchema.extend({
  pr: z
    .object({
      number: prNumberSchema().optional(),
      branch: branchNameSchema('pr.branch').optional().describe('the head branch: the open PR submitted from it, else the last one'),
    })
    .refine((pr) => (pr.number === undefined) !== (pr.branch === undefined), 'pr must hold either number or branch, not both'),
});
export type GetSubmittedPullRequestRequest = z.infer<typeof getSubmittedPullRequestRequest>;

/** `ALL` is a bare string, not inside an array; `[]` is a valid upload meaning "depends on nothing". */
export const impactedTargetsSchema = z.union([
  z.array(z.string().min(1, 'a target name must not be empty')),
  z.string().refine((s) => s.toUpperCase() === 'ALL', 'impactedTargets must be a list of target names or the string "ALL"'),
]);

export const setImpactedTargetsRequest = queueKeySchema.extend({
  pr: z.object({
    number: prNumberSchema(1),
    sha: commitShaSchema('pr.sha').optional(),
  }),
  impactedTargets: impactedTargetsSchema,
});

/** listPullRequests (Trunk v1): a page of the queue's PRs, by state or by when they concluded. */
export const listPullRequestsRequest = queueKeySchema.extend({
  state: anyCaseEnum(PR_STATES).optional().describe('only PRs in this state (any case)'),
  since: z.iso.datetime({ offset: true }).optional().describe('only PRs that concluded (merged, failed, cancelled) at or after this time'),
  cursor: z.uuid().optional().describe('nextCursor of the previous page'),
  take: z.number().int().min(1).max(100).optional().describe('PRs per page, 1-100 (default 50)'),
});
export type ListPullRequestsRequest = z.infer<typeof listPullRequestsRequest>;

export type SubmitPullRequestRequest = z.infer<typeof submitPullRequestRequest>;
export type SetImpactedTargetsRequest = z.infer<typeof setImpactedTargetsRequest>;
