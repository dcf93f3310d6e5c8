import { z } from 'zod';
import {
  checkFailuresResponseSchema,
  getCommitStatusesResponseSchema,
  healthResponseSchema,
  readinessResponseSchema,
  historyPageSchema,
  linkTicketResponseSchema,
  listQuarantinedResponseSchema,
  listUnhealthyResponseSchema,
  pullRequestPageSchema,
  queueOperations,
  reclassifyResponseSchema,
  setCommitStatusResponseSchema,
  setQuarantineResponseSchema,
  testDetailsResponseSchema,
  testingDetailsResponseSchema,
  uploadSummarySchema,
  type OperationDoc,
  type ParameterDoc,
  type TagDoc,
} from '@railyard/api-schema';
import { getCommitStatusesRequest, setCommitStatusRequest } from '@railyard/ci';
import { getQueueHistoryRequest } from '../routes/history';
import {
  checkFailuresRequest,
  linkTicketRequest,
  listQuarantinedRequest,
  listUnhealthyRequest,
  reclassifyRequest,
  setQuarantineRequest,
  testDetailsRequest,
  uploadJsonRequest,
} from '../routes/test-health/schemas';
import { testingDetailsRequest } from '../routes/testing-details';

export const TAGS: TagDoc[] = [
  { name: 'Queues', description: 'Create, configure, read and delete the queue of a target branch (admin to change, read to look).' },
  { name: 'Pull requests', description: 'Submit, cancel, restart and follow PRs in a queue.' },
  { name: 'Impacted targets', description: 'What a PR affects, so parallel queues test only what overlaps.' },
  { name: 'Testing', description: 'The test runs the queue starts: their branches, checks and tested PRs.' },
  { name: 'Statuses', description: 'Commit statuses reported by an outside CI, which gate merges like the local CI does.' },
  { name: 'Test health', description: 'JUnit uploads, flaky and broken tests, quarantine.' },
  { name: 'History', description: "A queue's audit trail, read straight from its event stream." },
  { name: 'Metrics', description: 'Prometheus metrics of the queues and of this process.' },
  { name: 'Operations', description: 'Liveness, readiness, this document and its browsable form.' },
  { name: 'CI pages', description: 'The pages statuses and test runs link to: check logs and PRs of the local git host.' },
];

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const SHA = '9c1f6e0b4a7d3e2f1c0b9a8d7e6f5a4b3c2d1e0f';
const TEST_ID = '6ba7b811-9dad-51d1-80b4-00c04fd430c8';
const RUN_ID = '01HZY3M9Q8K2B7V4N6C1D5E0FA';

const pathParam = (name: string, description: string, example: string): ParameterDoc => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: z.string(),
  example,
});

const queryParam = (name: string, description: string, example: string): ParameterDoc => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: z.string(),
  example,
});

const testHealth = (
  operationId: string,
  summary: string,
  scope: OperationDoc['scope'],
  request: { name: string; schema: z.ZodType; example: unknown },
  response: { name: string; schema: z.ZodType },
  description?: string,
): OperationDoc => ({
  method: 'post',
  path: `/v1/flaky-tests/${operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  operationId,
  tag: 'Test health',
  summary,
  ...(description ? { description } : {}),
  scope,
  request,
  response: { description: summary, body: response },
  errors: [404],
});

/** The operations whose schemas live beside their routes in apps/api, and the pages outside /v1. */
export const appOperations: OperationDoc[] = [
  {
    method: 'post',
    path: '/v1/getMergeQueueTestingDetails',
    operationId: 'getMergeQueueTestingDetails',
    tag: 'Testing',
    summary: 'A test run: its branch, checks with their logs, and the PRs it tested',
    scope: 'read',
    request: {
      name: 'TestingDetailsRequest',
      schema: testingDetailsRequest,
      example: { repo: REPO, targetBranch: 'main', testRunId: RUN_ID },
    },
    response: { description: 'The test run', body: { name: 'TestRun', schema: testingDetailsResponseSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/setCommitStatus',
    operationId: 'setCommitStatus',
    tag: 'Statuses',
    summary: 'Report a commit status, as an outside CI does',
    scope: 'write',
    request: {
      name: 'SetCommitStatusRequest',
      schema: setCommitStatusRequest,
      example: {
        repo: REPO,
        sha: SHA,
        context: 'jenkins/build',
        state: 'success',
        targetUrl: 'https://ci.example.org/job/9',
        description: 'passed',
      },
    },
    response: { description: 'The status as stored', body: { name: 'CommitStatusSet', schema: setCommitStatusResponseSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/getCommitStatuses',
    operationId: 'getCommitStatuses',
    tag: 'Statuses',
    summary: "A commit's statuses and their combined state",
    scope: 'read',
    request: { name: 'GetCommitStatusesRequest', schema: getCommitStatusesRequest, example: { repo: REPO, sha: SHA } },
    response: { description: 'The statuses', body: { name: 'CommitStatuses', schema: getCommitStatusesResponseSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/getQueueHistory',
    operationId: 'getQueueHistory',
    tag: 'History',
    summary: "A queue's events, oldest first, paged (also after the queue was deleted)",
    scope: 'read',
    request: {
      name: 'GetQueueHistoryRequest',
      schema: getQueueHistoryRequest,
      example: { repo: REPO, targetBranch: 'main', since: '2026-03-01T00:00:00Z', page_query: { page_size: 100 } },
    },
    response: { description: 'One page of events', body: { name: 'HistoryPage', schema: historyPageSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/uploadTestResults',
    operationId: 'uploadTestResults',
    tag: 'Test health',
    summary: 'Record the JUnit XML reports of one CI job',
    description:
      'JSON with the files in base64, or one report as the body (application/xml, text/xml, or gzip) with repo, sha, branch (and pr, job, variant, file-name) as query parameters or `x-railyard-<name>` headers.',
    scope: 'write',
    parameters: [
      queryParam('repo', 'HOST/OWNER/NAME (raw bodies only)', 'github.com/acme/widgets'),
      queryParam('sha', 'the tested commit (raw bodies only)', SHA),
      queryParam('branch', 'the branch the job ran for (raw bodies only)', 'main'),
      queryParam('pr', 'the PR number (raw bodies only)', '12'),
      queryParam('job', 'the CI job (raw bodies only)', 'unit'),
      queryParam('variant', 'the variant, e.g. a platform (raw bodies only)', 'linux'),
      queryParam('file-name', 'the report name (raw bodies only)', 'junit.xml'),
    ],
    request: {
      name: 'UploadTestResultsRequest',
      schema: uploadJsonRequest,
      example: {
        repo: 'github.com/acme/widgets',
        branch: 'main',
        sha: SHA,
        job: 'unit',
        files: [{ name: 'junit.xml', contentBase64: 'PHRlc3RzdWl0ZSBuYW1lPSJzIj48dGVzdGNhc2UgbmFtZT0idCIvPjwvdGVzdHN1aXRlPg==' }],
      },
      alternatives: {
        'application/xml': { description: 'one JUnit XML report' },
        'text/xml': { description: 'one JUnit XML report' },
        'application/gzip': { description: 'one gzip-compressed JUnit XML report' },
      },
    },
    response: { description: 'What the upload held', body: { name: 'UploadSummary', schema: uploadSummarySchema } },
    errors: [404],
  },
  testHealth(
    'listUnhealthyTests',
    'Flaky or broken tests of a repository, paged',
    'read',
    {
      name: 'ListUnhealthyTestsRequest',
      schema: listUnhealthyRequest,
      example: { repo: REPO, org_url_slug: 'railyard', status: 'flaky', page_query: { page_size: 50 } },
    },
    { name: 'UnhealthyTests', schema: listUnhealthyResponseSchema },
  ),
  testHealth(
    'listQuarantinedTests',
    'Quarantined tests of a repository, paged',
    'read',
    {
      name: 'ListQuarantinedTestsRequest',
      schema: listQuarantinedRequest,
      example: { repo: REPO, org_url_slug: 'railyard', page_query: {} },
    },
    { name: 'QuarantinedTests', schema: listQuarantinedResponseSchema },
  ),
  testHealth(
    'setQuarantine',
    "Override a test's quarantine: always, never, or auto (while flaky)",
    'admin',
    {
      name: 'SetQuarantineRequest',
      schema: setQuarantineRequest,
      example: { repo: REPO, testId: TEST_ID, quarantine: 'always', reason: 'tracked in OPS-12' },
    },
    { name: 'QuarantineSet', schema: setQuarantineResponseSchema },
  ),
  testHealth(
    'checkFailures',
    'Whether every failed test of a CI job is quarantined',
    'read',
    {
      name: 'CheckFailuresRequest',
      schema: checkFailuresRequest,
      example: { repo: REPO, failures: [{ name: 'charges card', classname: 'billing' }] },
    },
    { name: 'FailuresChecked', schema: checkFailuresResponseSchema },
    'A job whose only failures are quarantined tests may pass; no failure at all answers false.',
  ),
  testHealth(
    'getTestDetails',
    'Everything known about one test',
    'read',
    { name: 'GetTestDetailsRequest', schema: testDetailsRequest, example: { repo: REPO, test_id: TEST_ID } },
    { name: 'TestDetails', schema: testDetailsResponseSchema },
  ),
  testHealth(
    'linkTicketToTestCase',
    'Link a ticket to a test (an empty html_url removes it)',
    'write',
    {
      name: 'LinkTicketRequest',
      schema: linkTicketRequest,
      example: { repo: REPO, test_case_id: TEST_ID, html_url: 'https://tracker.example.org/OPS-12' },
    },
    { name: 'TicketLinked', schema: linkTicketResponseSchema },
  ),
  testHealth(
    'reclassify',
    "Classify a repository's tests again now",
    'admin',
    { name: 'ReclassifyRequest', schema: reclassifyRequest, example: { repo: REPO } },
    { name: 'Reclassified', schema: reclassifyResponseSchema },
  ),
  {
    method: 'get',
    path: '/v1/getMergeQueueMetrics',
    operationId: 'getMergeQueueMetrics',
    tag: 'Metrics',
    summary: 'Prometheus metrics: the queues, the projections lag, and this process',
    description: 'Give `repo` and `repoHost` together to narrow the queue series to one repository (docs/metrics.md).',
    scope: 'read',
    parameters: [queryParam('repo', 'owner/name', 'acme/widgets'), queryParam('repoHost', 'the host of repo', 'github.com')],
    response: {
      description: 'Prometheus text exposition format 0.0.4',
      mediaType: 'text/plain',
      text: '# HELP mq_depth_current PRs in the queue now.\n# TYPE mq_depth_current gauge\nmq_depth_current{repo="acme/widgets",branch="main"} 3\n',
    },
    errors: [400, 405],
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'Operations',
    summary: 'Liveness: the process answers',
    scope: 'public',
    response: { description: 'Alive', body: { name: 'Health', schema: healthResponseSchema, example: { status: 'ok' } } },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Operations',
    summary: 'Readiness: a projector runs and the read models are current enough to answer',
    description:
      'Not ready (503, same body) when no projector holds the projector lease or the read models lag past RAILYARD_PROJECTION_MAX_LAG_MS (docs/operations.md, "Readiness"). Queues the engine cannot drive are listed in `hostProblems` (with repository and detail, and the projector `holder`, only for a caller that sends a valid `x-api-token`) without making the API unready.',
    scope: 'public',
    // Limited per source address like every route but /healthz (docs/api.md, "Limits").
    errors: [429],
    response: {
      description: 'Ready',
      body: {
        name: 'Readiness',
        schema: readinessResponseSchema,
        example: {
          status: 'ready',
          projector: { running: true, holder: 'api-7f9c:41:6c0e2f0e-5d7b-4b43-9d8e-0f5a3b2f6a10' },
          projectionLag: { behind: false, seconds: 0, maxSeconds: 10, checkpoint: '1042', head: '1042' },
          problems: [],
          hostProblems: [],
        },
      },
      unavailable: {
        description: 'Not ready: no projector, or the read models lag too far; `problems` says which',
        example: {
          status: 'not_ready',
          projector: { running: false, holder: null },
          projectionLag: { behind: true, seconds: 42.5, maxSeconds: 10, checkpoint: '1042', head: '1057' },
          problems: [
            { code: 'PROJECTOR_UNAVAILABLE', message: 'no projector holds the projector lease: the read models are not being updated' },
            { code: 'READ_MODELS_BEHIND', message: 'the read models are 42.5 s behind the event store (limit 10 s)' },
          ],
          hostProblems: [{ code: 'REPOSITORY_NOT_FOUND', since: '2026-03-01T09:00:00.000Z' }],
        },
      },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Operations',
    summary: 'This document',
    scope: 'public',
    // Limited per source address like every route but /healthz (docs/api.md, "Limits").
    errors: [429],
    response: { description: 'The OpenAPI 3.1 document', body: { name: 'OpenApiDocument', schema: z.record(z.string(), z.unknown()) } },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiDocs',
    tag: 'Operations',
    summary: 'This document as a browsable page (assets served by this server, no CDN)',
    scope: 'public',
    // Limited per source address like every route but /healthz (docs/api.md, "Limits").
    errors: [429],
    response: { description: 'An HTML page', mediaType: 'text/html', text: '<!doctype html>…' },
  },
  {
    method: 'get',
    path: '/ci/logs/{testRunId}/{check}',
    operationId: 'getCheckLog',
    tag: 'CI pages',
    summary: "A local CI check's output so far, as plain text",
    scope: 'read',
    parameters: [pathParam('testRunId', 'the test run id', RUN_ID), pathParam('check', 'the check name, as in .railyard.yml', 'test')],
    response: { description: 'The log', mediaType: 'text/plain', text: '$ npm test\n> 42 passed\n' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/repos/{host}/{owner}/{name}/pulls/{number}',
    operationId: 'getLocalPullRequest',
    tag: 'CI pages',
    summary: 'A PR of the local git host (what testing details link to)',
    scope: 'read',
    parameters: [
      pathParam('host', 'the repository host', 'git.local'),
      pathParam('owner', 'the repository owner', 'acme'),
      pathParam('name', 'the repository name', 'widgets'),
      pathParam('number', 'the PR number', '12'),
    ],
    response: { description: 'The PR', body: { name: 'LocalPullRequest', schema: pullRequestPageSchema } },
    errors: [400, 404],
  },
];

/** Every operation the API serves, in the order the document lists them. */
export const apiOperations = (): OperationDoc[] => [...queueOperations, ...appOperations];
