import { openApiDocument, type TagDoc } from '@railyard/api-schema';
import type { AnyOperation } from '../http/operation';
import { OPERATIONS } from '../operations';
import { trunkOperationAt } from '../trunk/contract';

export const TAGS: TagDoc[] = [
  { name: 'Queues', description: 'Create, configure, read and delete the queue of a target branch (admin to change, read to look).' },
  { name: 'Pull requests', description: 'Submit, cancel, restart and follow PRs in a queue.' },
  { name: 'Impacted targets', description: 'What a PR affects, so parallel queues test only what overlaps.' },
  { name: 'Testing', description: 'The test runs the queue starts: their branches, checks and tested PRs.' },
  { name: 'Statuses', description: 'Commit statuses reported by an outside CI, which gate merges like the local CI does.' },
  { name: 'Test health', description: 'JUnit uploads, flaky and broken tests, quarantine.' },
  { name: 'History', description: "A queue's audit trail, read straight from its event stream." },
  {
    name: 'Webhooks',
    description: "Endpoints sent Trunk's queue events, signed (Standard Webhooks), or Slack messages; their delivery log (admin).",
  },
  { name: 'Metrics', description: 'Prometheus metrics of the queues and of this process.' },
  { name: 'Operations', description: 'Liveness, readiness, this document and its browsable form.' },
  { name: 'CI pages', description: 'The pages statuses and test runs link to: check logs and PRs of the local git host.' },
];

const DESCRIPTION = `Railyard's HTTP API: Trunk's Merge Queue v1 operations under /v1 (POST with a JSON body,
except getMergeQueueMetrics), test health, statuses, history, and the pages they link to. Every error
is JSON: {"error":{"code","message"}}, with \`fields\` naming each invalid field of a 400.`;

let cached: Record<string, unknown> | undefined;

/** Trunk's operations also answer 422: a request Trunk's schema accepts is never a 400 (http/operations-router.ts). */
const withTrunkRefusals = (operations: readonly AnyOperation[]): AnyOperation[] =>
  operations.map((op) =>
    op.request && trunkOperationAt(op.method, op.path)?.takesBody ? { ...op, errors: [...(op.errors ?? []), 422 as const] } : op,
  );

/** The document the server serves at /openapi.json, made from the operation table (built once: it never changes while the server runs). */
export const apiDocument = (version = '0.1.0'): Record<string, unknown> => {
  cached ??= openApiDocument(withTrunkRefusals(OPERATIONS), { version, tags: TAGS, description: DESCRIPTION });
  return cached;
};
