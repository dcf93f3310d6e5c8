import { z } from 'zod';
import {
  branchNameProblem,
  isObjectId,
  MAX_BRANCH_NAME_BYTES,
  MAX_REPO_SEGMENT_LENGTH,
  MAX_UINT32,
  repoSegmentProblem,
} from '@railyard/domain';

/** Enum input is accepted in any case (`SQUASH`, `squash`); output is always lower snake case. */
export const anyCaseEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(values));

/** A zod string checked by one of the domain's identifier rules, whose problem becomes the field's message. */
const identifier = (field: string, problemOf: (s: string) => string | undefined, description: string) =>
  z
    .string({ error: `${field} must be a string` })
    .superRefine((s, ctx) => {
      const problem = problemOf(s);
      if (problem) ctx.addIssue({ code: 'custom', message: `${field} ${problem}` });
    })
    .meta({ description });

/**
 * Host, owner and name as the git host can serve them (libs/domain/src/identifiers.ts): taken as
 * given, never trimmed or re-cased, so the queue is for exactly the repository the host finds.
 */
const segment = (field: string) =>
  identifier(field, repoSegmentProblem, `1-${MAX_REPO_SEGMENT_LENGTH} of A-Z a-z 0-9 . _ -, not starting with . or -`);

export const repoSchema = z.object({ host: segment('repo.host'), owner: segment('repo.owner'), name: segment('repo.name') });

/** A git branch name (git check-ref-format rules, no leading -); `/` and `@` are allowed. */
export const branchNameSchema = (field: string) =>
  identifier(field, branchNameProblem, `a git branch name (git check-ref-format), at most ${MAX_BRANCH_NAME_BYTES} bytes`);

export const targetBranchSchema = branchNameSchema('targetBranch');

/** A full commit id, 40 or 64 hex digits in either case; handed on in lowercase, as git prints it. */
export const commitShaSchema = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .transform((s) => s.toLowerCase())
    .refine(isObjectId, `${field} must be a full commit SHA (40 or 64 hex digits)`);

/** The official impacted-targets uploader sends the number as a JSON string, so digits in a string are accepted. */
export const prNumberSchema = (min = 0) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v),
    // The schema's own message covers only a wrong type: the range gets its own, or -3 read "must be an integer".
    z
      .number({ error: 'pr.number must be an integer' })
      .int('pr.number must be an integer')
      .min(min, `pr.number must be ${min} or more`)
      .max(MAX_UINT32, `pr.number must be at most ${MAX_UINT32}`),
  );

export const queueKeySchema = z.object({ repo: repoSchema, targetBranch: targetBranchSchema });
export type QueueKey = z.infer<typeof queueKeySchema>;
