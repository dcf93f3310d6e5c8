import { z } from 'zod';
import { pageInfoSchema } from './responses-test-health';

/** One event of a queue's stream as the audit trail shows it (getQueueHistory). */
export const historyEntrySchema = z.object({
  position: z.string().describe('global position in the event store, a decimal string (it may exceed 2^53)'),
  revision: z.number().int().min(0).describe("0-based position inside the queue's stream"),
  eventId: z.string(),
  time: z.iso.datetime({ offset: true }).describe('when the change was decided'),
  recordedAt: z.iso.datetime({ offset: true }).describe('when the store wrote it'),
  type: z.string(),
  actor: z.string().describe('token name, or engine / cli'),
  reason: z.string().nullable(),
  correlationId: z.string(),
  causationId: z.string().optional(),
  prNumber: z.number().int().optional(),
  data: z.record(z.string(), z.unknown()),
});

export const historyPageSchema = z.object({ events: z.array(historyEntrySchema), page: pageInfoSchema });
