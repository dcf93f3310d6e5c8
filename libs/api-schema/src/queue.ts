import { z } from 'zod';
import {
  DIRECT_MERGE_MODES,
  MAX_BATCH_SIZE,
  MAX_FLAKE_RETRIES,
  MAX_UINT32,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  REQUESTABLE_QUEUE_STATES,
} from '@railyard/domain';
import { anyCaseEnum, queueKeySchema } from './common';

const uint = (min: number) => z.number().int().min(min).max(MAX_UINT32);

/** Every updateQueue field of the spec's table. Unknown keys are refused: a typo in an admin call should not pass silently. */
/** Who reported a status or uploaded test results: a token name, or a reporter id such as `github-app:<slug>`. */
export const reporterSchema = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[^\s]+$/, 'a reporter is a token name or a reporter id, without spaces');

export const queueSettingsShape = {
  state: anyCaseEnum(REQUESTABLE_QUEUE_STATES).optional(),
  mode: anyCaseEnum(QUEUE_MODES).optional(),
  concurrency: uint(1).optional(),
  bisectionConcurrency: uint(1).optional(),
  testingTimeoutMinutes: uint(1).optional(),
  // The spec says 1..; the documented default is 0, so 0 is accepted (docs/decisions.md).
  pendingFailureDepth: uint(0).optional(),
  canOptimisticallyMerge: z.boolean().optional(),
  batch: z.boolean().optional(),
  batchingMaxWaitTimeMinutes: uint(1).optional(),
  batchingMinSize: uint(1).optional(),
  // Railyard's addition (docs/api.md, "Batch size"): above batchingMinSize, the size follows the failure rate.
  batchingMaxSize: z.number().int().min(1).max(MAX_BATCH_SIZE).optional(),
  commentsEnabled: z.boolean().optional(),
  commandsEnabled: z.boolean().optional(),
  createPrsForTestingBranches: z.boolean().optional(),
  statusCheckEnabled: z.boolean().optional(),
  directMergeMode: anyCaseEnum(DIRECT_MERGE_MODES).optional(),
  optimizationMode: anyCaseEnum(OPTIMIZATION_MODES).optional(),
  mergeMethod: anyCaseEnum(MERGE_METHODS).optional(),
  flakeRetries: z
    .number()
    .int()
    .min(0)
    .max(MAX_FLAKE_RETRIES)
    .optional()
    .describe('re-runs of a failed run on the same commit before its PRs are blamed, when the failure may be a flake (0 turns it off)'),
  // Railyard's addition (docs/api.md): the queue keeps its slots while a lone failure is re-run.
  flakeRetryConcurrency: uint(0)
    .optional()
    .describe('re-runs of lone failures that go on at once beside the queue, outside concurrency (0: they take a slot of the queue)'),
  // Railyard's addition (docs/api.md, D322, D336): on by default, false opts out.
  unknownFailuresHoldPlace: z
    .boolean()
    .optional()
    .describe(
      'a lone failure no test results name keeps its place while re-run (default true); the runs stacked on it vouch for it or step it aside',
    ),
  requiredStatuses: z.array(z.string().trim().min(1).max(255)).max(1000).optional(),
  statusReporters: z
    .record(
      z.string().trim().min(1).max(255),
      z.array(reporterSchema).min(1, 'name at least one reporter; leave the context out to let anyone report it').max(100),
    )
    .refine((r) => Object.keys(r).length <= 1000, 'at most 1000 contexts')
    .optional()
    .describe(
      'per commit-status context, who may report it: token names, or reporter ids such as github-app:<slug>; a status from anyone else is recorded but does not count. A context the local CI runs counts only from the local CI. updateQueue replaces the map; {} clears it',
    ),
};

export const createQueueRequest = queueKeySchema.extend(queueSettingsShape).strict();
export const updateQueueRequest = queueKeySchema
  .extend({ ...queueSettingsShape, deleteRequiredStatuses: z.boolean().optional() })
  .strict()
  .refine((b) => !(b.deleteRequiredStatuses && b.requiredStatuses?.length), {
    message: 'requiredStatuses and deleteRequiredStatuses cannot be given together',
    path: ['deleteRequiredStatuses'],
  });
export const deleteQueueRequest = queueKeySchema;
export const getQueueRequest = queueKeySchema;

export type CreateQueueRequest = z.infer<typeof createQueueRequest>;
export type UpdateQueueRequest = z.infer<typeof updateQueueRequest>;
