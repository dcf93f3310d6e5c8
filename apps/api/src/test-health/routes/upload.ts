import express, { type Request, type RequestHandler } from 'express';
import { uploadSummarySchema } from '@railyard/api-schema';
import { tokenReporter } from '@railyard/domain';
import { parseRepoSpec } from '@railyard/githost';
import type { RepoRef } from '@railyard/testhealth';
import { ApiError } from '../../http/errors';
import { BODY_LIMIT } from '../../http/json-body';
import { operationOf } from '../../http/operation';
import { parseBody } from '../../http/validate';
import { SHA } from '../../openapi/examples';
import { queryParam } from '../../openapi/parameters';
import type { TestHealthContext } from '../context';
import type { UploadInput } from '../recorder';

/** An upload as the request gives it; its uploader is the caller's token. */
type ReceivedUpload = Omit<UploadInput, 'reporter'>;
import { uploadJsonRequest } from '../schemas';

const operation = operationOf<TestHealthContext>();

const XML_TYPES = ['application/xml', 'text/xml'];
const GZIP_TYPES = ['application/gzip', 'application/x-gzip'];

const rawBody = express.raw({ limit: BODY_LIMIT, type: () => true });
const jsonParser = express.json({ limit: BODY_LIMIT, strict: true, type: () => true });

/** Three body forms, told apart by Content-Type before a byte is read; anything else is a 415. */
const uploadBody: RequestHandler = (req, res, next) => {
  if (req.is('application/json')) return jsonParser(req, res, next);
  if (req.is([...XML_TYPES, ...GZIP_TYPES])) return rawBody(req, res, next);
  next(
    new ApiError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `send JUnit XML as ${[...XML_TYPES, ...GZIP_TYPES].join(', ')}, or the JSON form as application/json`,
    ),
  );
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const repoOf = (value: unknown): RepoRef => {
  if (typeof value === 'string') {
    const repo = parseRepoSpec(value);
    if (!repo)
      throw new ApiError(400, 'VALIDATION_FAILED', 'repo must be HOST/OWNER/NAME', [{ field: 'repo', message: 'must be HOST/OWNER/NAME' }]);
    return repo;
  }
  return value as RepoRef;
};

const fromJson = (raw: unknown): ReceivedUpload => {
  const body = parseBody(uploadJsonRequest, raw);
  const files = body.files.map((f, i) => {
    const text = f.contentBase64.replace(/\s+/g, '');
    if (!BASE64.test(text) || text.length % 4 === 1) {
      throw new ApiError(400, 'VALIDATION_FAILED', `files.${i}.contentBase64 is not base64`, [
        { field: `files.${i}.contentBase64`, message: 'not base64' },
      ]);
    }
    return { name: f.name, bytes: Buffer.from(text, 'base64') };
  });
  return {
    repo: repoOf(body.repo),
    branch: body.branch,
    commitSha: body.sha.toLowerCase(),
    ...(body.prNumber !== undefined ? { prNumber: body.prNumber } : {}),
    ...(body.job ? { ciJob: body.job } : {}),
    ...(body.variant ? { variant: body.variant } : {}),
    files,
  };
};

/** Query parameter first, then the `x-railyard-<name>` header. */
const metaOf = (req: Request, name: string): string | undefined => {
  const q = req.query[name];
  if (typeof q === 'string') return q;
  if (q !== undefined)
    throw new ApiError(400, 'VALIDATION_FAILED', `${name} must be given once`, [{ field: name, message: 'given more than once' }]);
  const h = req.header(`x-railyard-${name}`);
  return h === undefined ? undefined : h;
};

const fromRaw = (req: Request): ReceivedUpload => {
  const missing = ['repo', 'sha', 'branch'].filter((n) => !metaOf(req, n));
  if (missing.length > 0) {
    throw new ApiError(
      400,
      'VALIDATION_FAILED',
      `missing ${missing.join(', ')}: give them as query parameters or x-railyard-<name> headers`,
      missing.map((field) => ({ field, message: 'required' })),
    );
  }
  const pr = metaOf(req, 'pr');
  if (pr !== undefined && !/^[1-9][0-9]{0,9}$/.test(pr))
    throw new ApiError(400, 'VALIDATION_FAILED', 'pr must be a positive integer', [{ field: 'pr', message: 'must be a positive integer' }]);
  const job = metaOf(req, 'job');
  const variant = metaOf(req, 'variant');
  const body = req.body as unknown;
  return {
    repo: repoOf(metaOf(req, 'repo')),
    branch: metaOf(req, 'branch') as string,
    commitSha: (metaOf(req, 'sha') as string).toLowerCase(),
    ...(pr !== undefined ? { prNumber: Number(pr) } : {}),
    ...(job ? { ciJob: job } : {}),
    ...(variant ? { variant } : {}),
    files: [{ name: metaOf(req, 'file-name') ?? 'report.xml', bytes: Buffer.isBuffer(body) ? body : Buffer.alloc(0) }],
  };
};

/**
 * JUnit XML as the body (plain or gzip) with the metadata in the query string or headers, or the JSON
 * form carrying several files in base64.
 */
export const uploadOperations = [
  operation({
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
    body: uploadBody,
    input: (req): ReceivedUpload => (req.is('application/json') ? fromJson(req.body) : fromRaw(req)),
    response: { description: 'What the upload held', body: { name: 'UploadSummary', schema: uploadSummarySchema } },
    errors: [404],
    // The uploader is the token, never what the body says: who may supply quarantine evidence is pinned by it.
    handle: (input, { deps, actor, correlationId }) =>
      deps.recorder.record({ ...input, reporter: tokenReporter(actor) }, { actor, correlationId }),
  }),
];
