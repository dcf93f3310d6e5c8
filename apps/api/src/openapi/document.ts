import { openApiDocument } from '@railyard/api-schema';
import { apiOperations, TAGS } from './operations';

const DESCRIPTION = `Railyard's HTTP API: Trunk's Merge Queue v1 operations under /v1 (POST with a JSON body,
except getMergeQueueMetrics), test health, statuses, history, and the pages they link to. Every error
is JSON: {"error":{"code","message"}}, with \`fields\` naming each invalid field of a 400.`;

let cached: Record<string, unknown> | undefined;

/** The document the server serves at /openapi.json (built once: the operations never change while it runs). */
export const apiDocument = (version = '0.1.0'): Record<string, unknown> => {
  cached ??= openApiDocument(apiOperations(), { version, tags: TAGS, description: DESCRIPTION });
  return cached;
};
