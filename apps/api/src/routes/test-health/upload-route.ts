import express, { Router, type Request, type RequestHandler } from 'express';
import { parseRepoSpec } from '@railyard/githost';
import type { RepoRef } from '@railyard/testhealth';
import { requireToken } from '../../auth/middleware';
import { ApiError } from '../../http/errors';
import { BODY_LIMIT } from '../../http/json-body';
import { parseBody } from '../../http/validate';
import type { TestHealthContext } from './context';
import type { UploadInput } from './recorder';
import { uploadJsonRequest } from './schemas';

export const UPLOAD_PATH = '/uploadTestResults';

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

const fromJson = (raw: unknown): UploadInput => {
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

const fromRaw = (req: Request): UploadInput => {
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
 * `POST /v1/uploadTestResults` (write scope): JUnit XML as the body (plain or gzip) with the
 * metadata in the query string or headers, or the JSON form carrying several files in base64.
 */
export const uploadRoutes = (th: TestHealthContext): Router => {
  const router = Router();
  router.post(UPLOAD_PATH, requireToken(th.tokens, 'write'), uploadBody, async (req, res) => {
    const input = req.is('application/json') ? fromJson(req.body) : fromRaw(req);
    const summary = await th.recorder.record(input, { actor: String(res.locals.actor), correlationId: String(res.locals.requestId) });
    res.status(200).json(summary);
  });
  return router;
};
