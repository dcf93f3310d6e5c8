import { createCiRunResponseSchema, listFailingResponseSchema } from '@railyard/api-schema';
import { failuresBetween, paginate, repoIdOf, uuidV5 } from '@railyard/testhealth';
import { ApiError } from '../../http/errors';
import { operationOf } from '../../http/operation';
import { REPO, SHA } from '../../openapi/examples';
import type { TestHealthContext } from '../context';
import { failureRatesOf } from '../failure-rates';
import { asPageError, requireOrg, requireRepo } from '../repo-guard';
import { createCiRunRequest, listFailingRequest } from '../schemas';
import { failingTestView } from '../views';

const WEEK_MS = 7 * 86_400_000;

const operation = operationOf<TestHealthContext>();

/** Trunk's failing-tests list and its CI-run record. */
export const failingOperations = [
  operation({
    method: 'post',
    path: '/v1/flaky-tests/list-failing-tests',
    operationId: 'listFailingTests',
    tag: 'Test health',
    summary: 'Tests that failed in a time range of at most 7 days, paged',
    description:
      'A test is listed when a run of it failed (or failed, then passed on a retry) at or after `start_time` and before `end_time`; the most failures in the range first.',
    scope: 'read',
    request: {
      name: 'ListFailingTestsRequest',
      schema: listFailingRequest,
      example: {
        repo: REPO,
        org_url_slug: 'railyard',
        start_time: '2026-03-01T00:00:00Z',
        end_time: '2026-03-02T00:00:00Z',
        page_query: { page_size: 50 },
      },
    },
    response: { description: 'One page of the tests', body: { name: 'FailingTests', schema: listFailingResponseSchema } },
    errors: [404],
    handle: async (body, { deps: th }) => {
      requireOrg(th, body.org_url_slug);
      const from = new Date(body.start_time);
      const to = new Date(body.end_time);
      if (to.getTime() <= from.getTime() || to.getTime() - from.getTime() > WEEK_MS)
        throw new ApiError(400, 'INVALID_TIME_RANGE', 'end_time must come after start_time, at most 7 days later', [
          { field: 'end_time', message: 'after start_time, at most 7 days later' },
        ]);
      await requireRepo(th, body.repo);
      const repoId = repoIdOf(body.repo);
      // Only a test whose last failure is at or after the start can have failed in the range.
      const candidates = await th.store.watchList(repoId, from.toISOString());
      const [docs, histories] = await Promise.all([th.store.getTests(repoId, candidates), th.store.getHistories(repoId, candidates)]);
      const failing = candidates
        .map((id, i) => ({ doc: docs[i], failures: failuresBetween(histories[i]?.runs ?? [], from, to) }))
        .filter((row): row is { doc: NonNullable<typeof row.doc>; failures: number } => !!row.doc && row.failures > 0)
        .sort((a, b) => b.failures - a.failures || (a.doc.id < b.doc.id ? -1 : 1));
      const filter = { repo: repoId, org: body.org_url_slug, list: 'failing', from: from.toISOString(), to: to.toISOString() };
      let page;
      try {
        page = paginate(
          failing,
          body.page_query as { page_size?: number; page_token?: string },
          (r) => [-r.failures, r.doc.id],
          th.config.pageTokenSecret,
          {
            filter,
          },
        );
      } catch (err) {
        return asPageError(err);
      }
      const owners = await th.facts.codeowners(body.repo);
      const rates = await failureRatesOf(
        th,
        repoId,
        page.rows.map((r) => r.doc.id),
      );
      const base = th.baseUrl();
      return {
        tests: page.rows.map((r, i) => failingTestView(r.doc, owners, base, rates[i] ?? { last7d: 0, last24h: 0 })),
        page: page.page,
      };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-ci/create-ci-run',
    operationId: 'createCiRun',
    tag: 'Test health',
    summary: 'Record a run of a CI job (Trunk alpha)',
    description:
      "Recorded on the repository's test-health stream. The run id is derived from the repository, provider, job, run and job ids, commit and attempt: the same run reported again gets the same id and is recorded once.",
    scope: 'write',
    request: {
      name: 'CreateCiRunRequest',
      schema: createCiRunRequest,
      example: {
        repo: REPO,
        org_url_slug: 'railyard',
        ci_job_name: 'unit',
        provider: 'github',
        run_start: '2026-03-01T09:00:00Z',
        run_end: '2026-03-01T09:05:00Z',
        branch: 'main',
        sha: SHA,
        attempt: 1,
        run_conclusion: 'failure',
        run_conclusion_cause: 'test',
      },
    },
    response: { description: 'The run id', body: { name: 'CiRunCreated', schema: createCiRunResponseSchema } },
    errors: [404],
    handle: async (body, ctx) => {
      const th = ctx.deps;
      requireOrg(th, body.org_url_slug);
      if (Date.parse(body.run_end) < Date.parse(body.run_start))
        throw new ApiError(400, 'INVALID_TIME_RANGE', 'run_end must not come before run_start', [
          { field: 'run_end', message: 'at or after run_start' },
        ]);
      await requireRepo(th, body.repo);
      const repoId = repoIdOf(body.repo);
      const identity = [
        repoId,
        body.provider ?? '',
        body.ci_job_name,
        body.providers_run_id ?? '',
        body.providers_job_id ?? '',
        body.sha,
        body.attempt,
      ];
      const runId = uuidV5(`railyard:ci-run:${JSON.stringify(identity)}`);
      // Reported again (a CI's retried call): one record, the same id.
      if (!(await th.store.getCiRun(repoId, runId))) {
        await th.writer.append(
          body.repo,
          [
            {
              type: 'CiRunRecorded',
              data: {
                repo: body.repo,
                runId,
                ciJobName: body.ci_job_name,
                ...(body.provider ? { provider: body.provider } : {}),
                runStart: new Date(body.run_start).toISOString(),
                runEnd: new Date(body.run_end).toISOString(),
                branch: body.branch,
                commitSha: body.sha,
                attempt: body.attempt,
                ...(body.run_conclusion ? { conclusion: body.run_conclusion } : {}),
                ...(body.run_conclusion_cause ? { conclusionCause: body.run_conclusion_cause } : {}),
                ...(body.providers_job_id ? { providersJobId: body.providers_job_id } : {}),
                ...(body.providers_run_id ? { providersRunId: body.providers_run_id } : {}),
                at: th.clock.now().toISOString(),
              },
            },
          ],
          ctx,
        );
      }
      return { run_id: runId };
    },
  }),
];
