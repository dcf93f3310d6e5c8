import { evidenceReportersResponseSchema, evidenceReportersSetResponseSchema } from '@railyard/api-schema';
import { operationOf } from '../../http/operation';
import { REPO } from '../../openapi/examples';
import type { TestHealthContext } from '../context';
import { requireRepo } from '../repo-guard';
import { getEvidenceReportersRequest, setEvidenceReportersRequest } from '../schemas';

const operation = operationOf<TestHealthContext>();

/**
 * Who may upload quarantine evidence for a repository (docs/test-health.md §4, "Who may upload
 * evidence"): Railyard's own endpoints beside Trunk's flaky-tests ones, the uploads' twin of a
 * queue's `statusReporters`.
 */
export const evidenceReporterOperations = [
  operation({
    method: 'post',
    path: '/v1/flaky-tests/get-evidence-reporters',
    operationId: 'getEvidenceReporters',
    tag: 'Test health',
    summary: 'Whose test-result uploads count as evidence for an automatic quarantine',
    scope: 'read',
    request: { name: 'GetEvidenceReportersRequest', schema: getEvidenceReportersRequest, example: { repo: REPO } },
    response: { description: 'The setting', body: { name: 'EvidenceReporters', schema: evidenceReportersResponseSchema } },
    errors: [404],
    handle: async (body, { deps: th }) => {
      await requireRepo(th, body.repo);
      return { reporters: await th.evidenceReporters.of(body.repo) };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-tests/set-evidence-reporters',
    operationId: 'setEvidenceReporters',
    tag: 'Test health',
    summary: 'Name whose test-result uploads count as evidence for an automatic quarantine',
    description:
      'Uploads by anyone else are kept and listed but do not make a test quarantined; the local CI’s own uploads always count. `null` lets every upload count (the default). The watched tests are classified again at once.',
    scope: 'admin',
    request: {
      name: 'SetEvidenceReportersRequest',
      schema: setEvidenceReportersRequest,
      example: { repo: REPO, reporters: ['jenkins'] },
    },
    response: {
      description: 'The setting now, and what the classification changed',
      body: { name: 'EvidenceReportersSet', schema: evidenceReportersSetResponseSchema },
    },
    errors: [404, 409],
    handle: async (body, ctx) => {
      const th = ctx.deps;
      await requireRepo(th, body.repo);
      const reporters = body.reporters === null ? null : [...new Set(body.reporters)].sort();
      await th.evidenceReporters.set(body.repo, reporters, ctx, th.clock.now().toISOString());
      // Evaluated even when nothing changed: an earlier call whose re-classification failed is then completed.
      const evaluation = await th.evaluator.sweep(body.repo, ctx);
      return { reporters, ...evaluation };
    },
  }),
];
