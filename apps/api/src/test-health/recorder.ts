import { randomUUID } from 'node:crypto';
import type { BlobStore } from '@railyard/eventstore';
import { isObjectId, isValidBranchName } from '@railyard/domain';
import { errorFields, type Logger } from '@railyard/observability';
import {
  DEFAULT_JUNIT_LIMITS,
  repoIdOf,
  type ParseWarning,
  type RepoFacts,
  type RepoRef,
  type SuiteFailure,
  type TestResultsUploaded,
} from '@railyard/testhealth';
import { ApiError } from '../http/errors';
import type { TestEvaluator } from './evaluator';
import { ParserBusyError, type JUnitParsePool } from './parse-pool';
import type { Clock, TestHealthWriter, WriteMeta } from './writer';

/** The whole upload, every file together, as received (the spec's 20 MiB request limit). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
export const MAX_UPLOAD_FILES = 100;
/**
 * Every file of an upload together, as parsed: the parser's own per-report defaults, which are now
 * per upload (100 reports of 6,000 cases each stalled the server for seconds and took 2.1 GB).
 */
export const MAX_UPLOAD_CASES = DEFAULT_JUNIT_LIMITS.maxCases;
export const MAX_UPLOAD_XML_BYTES = DEFAULT_JUNIT_LIMITS.maxXmlBytes;

export interface UploadInput {
  repo: RepoRef;
  branch: string;
  commitSha: string;
  prNumber?: number;
  ciJob?: string;
  variant?: string;
  testRunId?: string;
  /** Who uploads: `local-ci` for the runner's reports, `token:<name>` over HTTP (docs/test-health.md §4). */
  reporter: string;
  files: { name: string; bytes: Buffer }[];
}

export interface UploadSummary {
  uploadId: string;
  repo: RepoRef;
  branch: string;
  commitSha: string;
  files: number;
  caseCount: number;
  testCount: number;
  failedCount: number;
  warnings: ParseWarning[];
  suiteFailures: SuiteFailure[];
  /** Tests re-classified after the upload, and how many of them changed. */
  evaluated: number;
  statusChanges: number;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

const badInput = (message: string): ApiError => new ApiError(400, 'VALIDATION_FAILED', message);

/** Refuses anything the event or the stores should never see; every message names the field. */
export const checkUploadInput = (input: UploadInput): void => {
  if (!isObjectId(input.commitSha)) throw badInput('sha must be a full lowercase hex commit id (40 or 64 characters)');
  if (!isValidBranchName(input.branch)) throw badInput(`branch ${JSON.stringify(input.branch)} is not a valid git branch name`);
  if (input.prNumber !== undefined && !(Number.isSafeInteger(input.prNumber) && input.prNumber >= 1 && input.prNumber <= 4_294_967_295)) {
    throw badInput('prNumber must be a positive integer');
  }
  for (const [field, value] of [
    ['job', input.ciJob],
    ['variant', input.variant],
  ] as const) {
    if (value !== undefined && (value.length > 255 || CONTROL.test(value)))
      throw badInput(`${field} must be at most 255 characters without control characters`);
  }
  if (input.files.length === 0) throw badInput('files must hold at least one JUnit report');
  if (input.files.length > MAX_UPLOAD_FILES) throw badInput(`files may hold at most ${MAX_UPLOAD_FILES} reports per upload`);
  for (const f of input.files) {
    if (f.name.length === 0 || f.name.length > 255 || CONTROL.test(f.name))
      throw badInput('each file name must be 1 to 255 characters without control characters');
  }
  const total = input.files.reduce((sum, f) => sum + f.bytes.length, 0);
  if (total > MAX_UPLOAD_BYTES)
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the reports hold ${total} bytes; the limit is ${MAX_UPLOAD_BYTES}`);
};

/**
 * The one path every upload takes (HTTP in both forms, the CLI through HTTP, the local CI runner
 * directly): validate, parse in a worker, store a large case list as a blob, record
 * TestResultsUploaded, then re-classify the tests it named. Nothing is stored unless the whole
 * upload parsed.
 */
export class UploadRecorder {
  constructor(
    private readonly deps: {
      pool: JUnitParsePool;
      blobs: BlobStore;
      writer: TestHealthWriter;
      evaluator: TestEvaluator;
      facts: RepoFacts;
      clock: Clock;
      logger: Logger;
      orgSlug: string;
    },
  ) {}

  async record(input: UploadInput, meta: WriteMeta): Promise<UploadSummary> {
    checkUploadInput(input);
    const { deps } = this;
    if (!(await deps.facts.exists(input.repo))) throw new ApiError(404, 'REPO_NOT_FOUND', 'no such repository on the git host');
    let outcome;
    try {
      outcome = await deps.pool.parse({
        files: input.files.map((f) => ({ name: f.name, bytes: f.bytes })),
        orgSlug: deps.orgSlug,
        repo: input.repo,
        maxFileBytes: MAX_UPLOAD_BYTES,
        maxUploadCases: MAX_UPLOAD_CASES,
        maxUploadXmlBytes: MAX_UPLOAD_XML_BYTES,
        ...(input.variant ? { variant: input.variant } : {}),
      });
    } catch (err) {
      if (err instanceof ParserBusyError)
        throw new ApiError(503, 'PARSER_BUSY', 'too many uploads are being parsed; retry shortly', undefined, { 'Retry-After': '5' });
      throw err;
    }
    if (!outcome.ok) throw new ApiError(outcome.code === 'TOO_LARGE' ? 413 : 400, outcome.code, outcome.message);
    const upload = outcome.upload;
    const treeSha = await deps.facts.treeOf(input.repo, input.commitSha);
    const cases: TestResultsUploaded['data']['cases'] = upload.blob
      ? {
          digest: await deps.blobs.put(Buffer.from(upload.blob.buffer, upload.blob.byteOffset, upload.blob.byteLength)),
          count: upload.caseCount,
          encoding: 'json+gzip',
        }
      : { inline: upload.inline ?? [] };
    const uploadId = randomUUID();
    const event: TestResultsUploaded = {
      type: 'TestResultsUploaded',
      data: {
        uploadId,
        repo: input.repo,
        orgSlug: deps.orgSlug,
        branch: input.branch,
        commitSha: input.commitSha,
        ...(treeSha ? { treeSha } : {}),
        ...(input.prNumber !== undefined ? { prNumber: input.prNumber } : {}),
        ...(input.ciJob ? { ciJob: input.ciJob } : {}),
        ...(input.testRunId ? { testRunId: input.testRunId } : {}),
        reporter: input.reporter,
        files: input.files.map((f) => ({ name: f.name, bytes: f.bytes.length })),
        stats: upload.stats,
        caseCount: upload.caseCount,
        warnings: upload.warnings,
        suiteFailures: upload.suiteFailures,
        cases,
        at: deps.clock.now().toISOString(),
      },
    };
    await deps.writer.append(input.repo, [event], meta);
    let evaluation = { evaluated: 0, changed: 0 };
    try {
      evaluation = await deps.evaluator.afterUpload(input.repo, upload, meta);
    } catch (err) {
      // The upload is recorded; its failing tests are on the sweep's watch list, so the verdict only comes later.
      deps.logger.error('re-classification after an upload failed; the sweep will retry', {
        repo: repoIdOf(input.repo),
        uploadId,
        ...errorFields(err),
      });
    }
    deps.logger.info('test results recorded', {
      repo: repoIdOf(input.repo),
      uploadId,
      cases: upload.caseCount,
      failed: upload.stats.failedCount,
      blob: upload.blob !== undefined,
      statusChanges: evaluation.changed,
    });
    return {
      uploadId,
      repo: input.repo,
      branch: input.branch,
      commitSha: input.commitSha,
      files: input.files.length,
      caseCount: upload.caseCount,
      testCount: upload.stats.testCount,
      failedCount: upload.stats.failedCount,
      warnings: upload.warnings,
      suiteFailures: upload.suiteFailures,
      evaluated: evaluation.evaluated,
      statusChanges: evaluation.changed,
    };
  }
}
