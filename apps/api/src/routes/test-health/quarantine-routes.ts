import { Router } from 'express';
import { allFailuresQuarantined, quarantineSettingOf, repoIdOf, testIdOfReported } from '@railyard/testhealth';
import { ApiError } from '../../http/errors';
import { parseBody } from '../../http/validate';
import { jsonPost, type TestHealthContext } from './context';
import { requireRepo } from './repo-guard';
import { checkFailuresRequest, linkTicketRequest, reclassifyRequest, setQuarantineRequest, testDetailsRequest } from './schemas';
import { testDetailsView } from './views';

const unknownTest = () => new ApiError(404, 'TEST_NOT_FOUND', 'no test with this id has been uploaded for the repository');

/** Quarantine overrides, the CI quarantine check, test details, ticket links and a manual re-classification. */
export const quarantineRoutes = (th: TestHealthContext): Router => {
  const router = Router();

  jsonPost(router, th.tokens, '/flaky-tests/set-quarantine', 'admin', async (raw, ctx) => {
    const body = parseBody(setQuarantineRequest, raw);
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
  });

  jsonPost(router, th.tokens, '/flaky-tests/check-failures', 'read', async (raw) => {
    const body = parseBody(checkFailuresRequest, raw);
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
  });

  jsonPost(router, th.tokens, '/flaky-tests/get-test-details', 'read', async (raw) => {
    const body = parseBody(testDetailsRequest, raw);
    await requireRepo(th, body.repo);
    const doc = await th.store.getTest(repoIdOf(body.repo), body.test_id);
    if (!doc) throw unknownTest();
    return { test: testDetailsView(doc, await th.facts.codeowners(body.repo), th.baseUrl()) };
  });

  jsonPost(router, th.tokens, '/flaky-tests/link-ticket-to-test-case', 'write', async (raw, ctx) => {
    const body = parseBody(linkTicketRequest, raw);
    await requireRepo(th, body.repo);
    const doc = await th.store.getTest(repoIdOf(body.repo), body.test_case_id);
    if (!doc) throw unknownTest();
    const htmlUrl = body.html_url === '' ? null : body.html_url;
    if (htmlUrl !== doc.ticketUrl) {
      await th.writer.append(
        body.repo,
        [{ type: 'TestTicketLinked', data: { repo: body.repo, testId: doc.id, htmlUrl, at: th.clock.now().toISOString() } }],
        ctx,
      );
    }
    return { test_case_id: doc.id, ticket: { html_url: htmlUrl ?? '' } };
  });

  jsonPost(router, th.tokens, '/flaky-tests/reclassify', 'admin', async (raw, ctx) => {
    const body = parseBody(reclassifyRequest, raw);
    await requireRepo(th, body.repo);
    return th.evaluator.sweep(body.repo, ctx);
  });

  return router;
};
