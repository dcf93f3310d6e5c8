import {
  checkFailuresResponseSchema,
  linkTicketResponseSchema,
  reclassifyResponseSchema,
  setQuarantineResponseSchema,
  testDetailsResponseSchema,
} from '@railyard/api-schema';
import { allFailuresQuarantined, quarantineSettingOf, repoIdOf, testIdOfReported } from '@railyard/testhealth';
import { ApiError } from '../../http/errors';
import { operationOf } from '../../http/operation';
import { REPO, TEST_ID } from '../../openapi/examples';
import type { TestHealthContext } from '../context';
import { failureRatesOf } from '../failure-rates';
import { requireOrg, requireRepo } from '../repo-guard';
import { checkFailuresRequest, linkTicketRequest, reclassifyRequest, setQuarantineRequest, testDetailsRequest } from '../schemas';
import { testDetailsView, type FailureRates } from '../views';

/**
 * A tracker's id as a link: itself when it is already a URL, else RAILYARD_TICKET_URL with `{id}` in
 * place of the id. Without that setting the server cannot know where the ticket lives, but a Trunk
 * client sends only the id: the ticket is then named by a URI of its own, `urn:x-ticket:<id>`, which
 * keeps the id and fits Trunk's `html_url` (a URI) until the setting is made.
 */
const ticketUrlOf = (th: TestHealthContext, id: string): string => {
  if (/^https?:\/\/\S+$/i.test(id)) return id;
  if (!th.config.ticketUrl) return `urn:x-ticket:${encodeURIComponent(id)}`;
  return th.config.ticketUrl.replace('{id}', encodeURIComponent(id));
};

const unknownTest = () => new ApiError(404, 'TEST_NOT_FOUND', 'no test with this id has been uploaded for the repository');

const operation = operationOf<TestHealthContext>();

/** Quarantine overrides, the CI quarantine check, test details, ticket links and a manual re-classification. */
export const quarantineOperations = [
  operation({
    method: 'post',
    path: '/v1/flaky-tests/set-quarantine',
    operationId: 'setQuarantine',
    tag: 'Test health',
    summary: "Override a test's quarantine: always, never, or auto (while flaky)",
    scope: 'admin',
    request: {
      name: 'SetQuarantineRequest',
      schema: setQuarantineRequest,
      example: { repo: REPO, testId: TEST_ID, quarantine: 'always', reason: 'tracked in OPS-12' },
    },
    response: {
      description: "The test's quarantine now",
      body: { name: 'QuarantineSet', schema: setQuarantineResponseSchema },
    },
    errors: [404],
    handle: async (body, ctx) => {
      const th = ctx.deps;
      await requireRepo(th, body.repo);
      const repoId = repoIdOf(body.repo);
      const doc = await th.store.getTest(repoId, body.testId);
      if (!doc) throw unknownTest();
      const override = body.quarantine === 'auto' ? null : body.quarantine;
      // Setting what is already set records nothing: a retried admin call stays one audit entry.
      if (override !== doc.override) {
        await th.writer.append(
          body.repo,
          [
            {
              type: 'QuarantineOverrideSet',
              data: {
                repo: body.repo,
                testId: body.testId,
                override,
                previous: doc.override,
                ...(body.reason ? { reason: body.reason } : {}),
                at: th.clock.now().toISOString(),
              },
            },
          ],
          ctx,
        );
      }
      const after = (await th.store.getTest(repoId, body.testId)) ?? doc;
      return {
        testId: after.id,
        quarantine: after.override ?? 'auto',
        quarantined: after.quarantined,
        quarantined_at: after.quarantinedAt,
        status: after.status,
      };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-tests/check-failures',
    operationId: 'checkFailures',
    tag: 'Test health',
    summary: 'Whether every failed test of a CI job is quarantined',
    description: 'A job whose only failures are quarantined tests may pass; no failure at all answers false.',
    scope: 'read',
    request: {
      name: 'CheckFailuresRequest',
      schema: checkFailuresRequest,
      example: { repo: REPO, failures: [{ name: 'charges card', classname: 'billing' }] },
    },
    response: {
      description: 'The verdict, and what is known of each failure',
      body: { name: 'FailuresChecked', schema: checkFailuresResponseSchema },
    },
    errors: [404],
    handle: async (body, { deps: th }) => {
      await requireRepo(th, body.repo);
      const context = { orgSlug: th.config.orgSlug, repo: body.repo };
      const ids = body.failures.map((f) => ('testId' in f ? f.testId : testIdOfReported(f, context)));
      const unique = [...new Set(ids)];
      const docs = await th.store.getTests(repoIdOf(body.repo), unique);
      const byId = new Map(unique.map((id, i) => [id, docs[i] ?? null]));
      const verdict = allFailuresQuarantined(ids, (id) => byId.get(id)?.quarantined);
      const describe = (id: string) => {
        const doc = byId.get(id);
        if (!doc) return { testId: id, known: false };
        return {
          testId: id,
          known: true,
          name: doc.name,
          classname: doc.classname,
          file: doc.file,
          parent: doc.parent,
          variant: doc.variant,
          status: doc.status,
        };
      };
      return {
        allQuarantined: verdict.allQuarantined,
        quarantined: verdict.quarantined.map((id) => ({
          ...describe(id),
          quarantine_setting: quarantineSettingOf(byId.get(id)?.override ?? undefined),
        })),
        notQuarantined: verdict.notQuarantined.map(describe),
      };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-tests/get-test-details',
    operationId: 'getTestDetails',
    tag: 'Test health',
    summary: 'Everything known about one test',
    scope: 'read',
    request: {
      name: 'GetTestDetailsRequest',
      schema: testDetailsRequest,
      example: { repo: REPO, org_url_slug: 'railyard', test_id: TEST_ID },
    },
    response: { description: 'The test', body: { name: 'TestDetails', schema: testDetailsResponseSchema } },
    errors: [404],
    handle: async (body, { deps: th }) => {
      if (body.org_url_slug !== undefined) requireOrg(th, body.org_url_slug);
      await requireRepo(th, body.repo);
      const repoId = repoIdOf(body.repo);
      const doc = await th.store.getTest(repoId, body.test_id);
      if (!doc) throw unknownTest();
      const [rates] = await failureRatesOf(th, repoId, [doc.id]);
      return { test: testDetailsView(doc, await th.facts.codeowners(body.repo), th.baseUrl(), rates as FailureRates) };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-tests/link-ticket-to-test-case',
    operationId: 'linkTicketToTestCase',
    tag: 'Test health',
    summary: 'Link a ticket to a test, by its id in the tracker or by its URL (an empty html_url removes it)',
    description:
      '`external_ticket_id` (as Trunk takes it, e.g. `KAN-123`) becomes a URL through RAILYARD_TICKET_URL; without that setting it is kept as `urn:x-ticket:<id>`.',
    scope: 'write',
    request: {
      name: 'LinkTicketRequest',
      schema: linkTicketRequest,
      example: { repo: REPO, test_case_id: TEST_ID, external_ticket_id: 'OPS-12' },
    },
    response: {
      description: "The test's ticket now",
      body: { name: 'TicketLinked', schema: linkTicketResponseSchema },
    },
    errors: [404],
    handle: async (body, ctx) => {
      const th = ctx.deps;
      await requireRepo(th, body.repo);
      const doc = await th.store.getTest(repoIdOf(body.repo), body.test_case_id);
      if (!doc) throw unknownTest();
      const externalId = body.external_ticket_id;
      const htmlUrl = externalId !== undefined ? ticketUrlOf(th, externalId) : body.html_url || null;
      if (htmlUrl !== doc.ticketUrl) {
        const at = th.clock.now().toISOString();
        const data = { repo: body.repo, testId: doc.id, htmlUrl, ...(externalId !== undefined ? { externalId } : {}), at };
        await th.writer.append(body.repo, [{ type: 'TestTicketLinked', data }], ctx);
      }
      return { test_case_id: doc.id, ...(htmlUrl ? { ticket: { html_url: htmlUrl } } : {}) };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-tests/reclassify',
    operationId: 'reclassify',
    tag: 'Test health',
    summary: "Classify a repository's tests again now",
    scope: 'admin',
    request: { name: 'ReclassifyRequest', schema: reclassifyRequest, example: { repo: REPO } },
    response: { description: 'What the classification changed', body: { name: 'Reclassified', schema: reclassifyResponseSchema } },
    errors: [404],
    handle: async (body, ctx) => {
      await requireRepo(ctx.deps, body.repo);
      return ctx.deps.evaluator.sweep(body.repo, ctx);
    },
  }),
];
