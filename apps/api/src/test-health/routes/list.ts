import type { IndexName, TestDoc } from '@railyard/readmodels';
import { sortKeyOf } from '@railyard/readmodels';
import {
  decodePageToken,
  pageInfoFor,
  pageSizeOf,
  PageQueryError,
  repoIdOf,
  scopeOf,
  type PageInfo,
  type RepoRef,
} from '@railyard/testhealth';
import { listQuarantinedResponseSchema, listUnhealthyResponseSchema } from '@railyard/api-schema';
import { operationOf } from '../../http/operation';
import { REPO } from '../../openapi/examples';
import type { TestHealthContext } from '../context';
import { asPageError, requireOrg, requireRepo } from '../repo-guard';
import { listQuarantinedRequest, listUnhealthyRequest } from '../schemas';
import { quarantinedTestView, unhealthyTestView } from '../views';

interface PageQueryInput {
  page_size?: unknown;
  page_token?: unknown;
}

/**
 * One keyset page of a listing. The token is bound to the request's filter (repo, organisation and,
 * for unhealthy tests, the status) and verified with the server's secret before the store is asked.
 */
const fetchPage = async (
  th: TestHealthContext,
  repo: RepoRef,
  index: IndexName,
  filter: object,
  query: PageQueryInput,
): Promise<{ rows: TestDoc[]; page: PageInfo }> => {
  try {
    const size = pageSizeOf(query.page_size);
    const scope = scopeOf(filter);
    const token = query.page_token;
    if (token !== undefined && token !== null && typeof token !== 'string')
      throw new PageQueryError('INVALID_PAGE_TOKEN', 'page_token must be a string');
    const cursor = token ? decodePageToken(token, th.config.pageTokenSecret, scope) : undefined;
    const listed = await th.store.listPage(repoIdOf(repo), index, size, cursor);
    const first = listed.rows[0];
    const last = listed.rows[listed.rows.length - 1];
    const page = pageInfoFor(
      {
        totalRows: listed.totalRows,
        pageSize: size,
        start: listed.start,
        rowCount: listed.rows.length,
        scope,
        ...(first && last ? { firstKey: sortKeyOf(index, first), lastKey: sortKeyOf(index, last) } : {}),
      },
      th.config.pageTokenSecret,
    );
    return { rows: listed.rows, page };
  } catch (err) {
    return asPageError(err);
  }
};

const operation = operationOf<TestHealthContext>();

/** The spec's two paged listings: unhealthy tests by status, and quarantined tests. */
export const listOperations = [
  operation({
    method: 'post',
    path: '/v1/flaky-tests/list-unhealthy-tests',
    operationId: 'listUnhealthyTests',
    tag: 'Test health',
    summary: 'Flaky or broken tests of a repository, paged',
    scope: 'read',
    request: {
      name: 'ListUnhealthyTestsRequest',
      schema: listUnhealthyRequest,
      example: { repo: REPO, org_url_slug: 'railyard', status: 'flaky', page_query: { page_size: 50 } },
    },
    response: {
      description: 'One page of the tests',
      body: { name: 'UnhealthyTests', schema: listUnhealthyResponseSchema },
    },
    errors: [404],
    handle: async (body, { deps: th }) => {
      requireOrg(th, body.org_url_slug);
      await requireRepo(th, body.repo);
      const status = body.status.toUpperCase();
      const filter = { repo: repoIdOf(body.repo), org: body.org_url_slug, status };
      const { rows, page } = await fetchPage(th, body.repo, status === 'FLAKY' ? 'flaky' : 'broken', filter, body.page_query);
      const owners = await th.facts.codeowners(body.repo);
      const base = th.baseUrl();
      return { tests: rows.map((d) => unhealthyTestView(d, owners, base)), page };
    },
  }),
  operation({
    method: 'post',
    path: '/v1/flaky-tests/list-quarantined-tests',
    operationId: 'listQuarantinedTests',
    tag: 'Test health',
    summary: 'Quarantined tests of a repository, paged',
    scope: 'read',
    request: {
      name: 'ListQuarantinedTestsRequest',
      schema: listQuarantinedRequest,
      example: { repo: REPO, org_url_slug: 'railyard', page_query: {} },
    },
    response: {
      description: 'One page of the tests',
      body: { name: 'QuarantinedTests', schema: listQuarantinedResponseSchema },
    },
    errors: [404],
    handle: async (body, { deps: th }) => {
      requireOrg(th, body.org_url_slug);
      await requireRepo(th, body.repo);
      const filter = { repo: repoIdOf(body.repo), org: body.org_url_slug, list: 'quarantined' };
      const { rows, page } = await fetchPage(th, body.repo, 'quarantined', filter, body.page_query);
      const owners = await th.facts.codeowners(body.repo);
      return { quarantined_tests: rows.map((d) => quarantinedTestView(d, owners)), page };
    },
  }),
];
