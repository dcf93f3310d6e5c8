import { ciOperations, ciPageOperations } from './ci/routes';
import type { DocsDeps } from './openapi/routes';
import type { ApiDeps } from './deps';
import type { AnyOperation, Operation } from './http/operation';
import { docsOperations } from './openapi/routes';
import { probeOperations } from './readiness/probes';
import { historyOperations } from './routes/history';
import { impactedTargetOperations } from './routes/impacted-targets';
import { metricsOperations } from './routes/metrics';
import { pullRequestOperations } from './routes/pull-requests';
import { pullRequestListOperations } from './routes/pull-request-list';
import { queueOperations } from './routes/queues';
import { testHealthOperations } from './test-health';
import { webhookOperations } from './routes/webhooks';

/**
 * What buildApp serves itself, over ApiDeps and the document: the probes, the document and its page,
 * and Trunk's queue, PR and impacted-target operations. The other features bring their routers.
 */
export const APP_OPERATIONS: readonly Operation<ApiDeps & DocsDeps>[] = [
  ...probeOperations,
  ...docsOperations,
  ...queueOperations,
  ...pullRequestOperations,
  ...pullRequestListOperations,
  ...impactedTargetOperations,
];

/**
 * Every endpoint of the API, each declared once, in the order the OpenAPI document lists them. The
 * routes, the 405 answers, the document and the tests' endpoint lists are all made from it; to add an
 * endpoint, add an operation to its feature's list (CONTRIBUTING.md, "Add an endpoint").
 */
export const OPERATIONS: readonly AnyOperation[] = [
  ...queueOperations,
  ...pullRequestOperations,
  ...pullRequestListOperations,
  ...impactedTargetOperations,
  ...ciOperations,
  ...historyOperations,
  ...webhookOperations,
  ...testHealthOperations,
  ...metricsOperations,
  ...probeOperations,
  ...docsOperations,
  ...ciPageOperations,
];
