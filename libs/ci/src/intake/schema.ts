import { z } from 'zod';
import { anyCaseEnum, commitShaSchema, repoSchema } from '@railyard/api-schema';
import { MAX_CONTEXT_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TARGET_URL_LENGTH } from '@railyard/githost';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

const url = z
  .string()
  .max(MAX_TARGET_URL_LENGTH, `must be at most ${MAX_TARGET_URL_LENGTH} characters`)
  .regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL');

/**
 * A status from an outside CI (Jenkins, Buildkite, Actions on a mirror): the intake endpoint and
 * `railyard status set` both validate with this. `url` is accepted as a spelling of `targetUrl`.
 */
export const setCommitStatusRequest = z
  .strictObject({
    repo: repoSchema,
    sha: commitShaSchema('sha'),
    context: z
      .string({ error: 'context must be a string' })
      .trim()
      .min(1, 'context must not be empty')
      .max(MAX_CONTEXT_LENGTH)
      .refine((c) => !CONTROL.test(c), 'context must not hold control characters'),
    state: anyCaseEnum(['pending', 'success', 'failure', 'error'] as const),
    targetUrl: url.optional(),
    url: url.optional(),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).optional(),
  })
  .refine((b) => !(b.url && b.targetUrl && b.url !== b.targetUrl), {
    message: 'give url or targetUrl, not two different ones',
    path: ['url'],
  });

export type SetCommitStatusRequest = z.infer<typeof setCommitStatusRequest>;

export const getCommitStatusesRequest = z.strictObject({
  repo: repoSchema,
  sha: setCommitStatusRequest.shape.sha,
});
