import { z } from 'zod';
import { MAX_UINT32 } from '@railyard/domain';

/** Enum input is accepted in any case (`SQUASH`, `squash`); output is always lower snake case. */
export const anyCaseEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(values));

/** A lone UTF-16 surrogate cannot be percent-encoded into a queue id; refuse it as input instead of failing later. */
const wellFormed = (s: string): boolean => !/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));

const name = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(255)
    .refine(wellFormed, `${what} must be valid Unicode text`);

export const repoSchema = z.object({ host: name('repo.host'), owner: name('repo.owner'), name: name('repo.name') });

export const targetBranchSchema = z
  .string({ error: 'targetBranch must be a string' })
  .min(1, 'targetBranch must not be empty')
  .max(255)
  .refine((b) => ![...b].some((c) => c.charCodeAt(0) < 0x20), 'targetBranch must not hold control characters')
  .refine(wellFormed, 'targetBranch must be valid Unicode text');

/** The official impacted-targets uploader sends the number as a JSON string, so digits in a string are accepted. */
export const prNumberSchema = (min = 0) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v),
    z.number({ error: 'pr.number must be an integer' }).int('pr.number must be an integer').min(min).max(MAX_UINT32),
  );

export const queueKeySchema = z.object({ repo: repoSchema, targetBranch: targetBranchSchema });
export type QueueKey = z.infer<typeof queueKeySchema>;
