import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Request, RequestHandler } from 'express';
import { setImpactedTargetsRequest, setImpactedTargetsResponseSchema } from '@railyard/api-schema';
import { queueIdOf, type RepoRef, type TargetsRef } from '@railyard/domain';
import { GitHostError } from '@railyard/githost';
import type { BlobStore } from '@railyard/eventstore';
import { requireToken } from '../auth/middleware';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { operationOf } from '../http/operation';
import { parseBody } from '../http/validate';
import { KEY, PR } from '../openapi/examples';

const ALL_DIGEST = createHash('sha256').update('ALL').digest('hex');

/** Sorted (by UTF-16 code units, as Array#sort) and de-duplicated; sorting first and dropping neighbours needs no Set of 500,000 names. */
const sortedUnique = (targets: readonly string[]): string[] => {
  const sorted = [...targets].sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[kept++] = sorted[i] as string;
  sorted.length = kept;
  return sorted;
};

/**
 * Stores the list once, content-addressed: sorted and de-duplicated, one name a line. Events carry
 * only the digest and count, so a 20 MiB upload never becomes a 20 MiB event.
 */
export const storeTargets = async (blobs: BlobStore, targets: string[] | 'ALL'): Promise<TargetsRef> => {
  if (targets === 'ALL') return { digest: ALL_DIGEST, count: 0, all: true };
  const unique = sortedUnique(targets);
  const digest = await blobs.put(Buffer.from(unique.join('\n'), 'utf8'));
  return { digest, count: unique.length, all: false };
};

const MAX_NAMED = 10;

/**
 * The target list is checked by one loop instead of the schema: zod would build an issue path and a
 * result per element, the larger part of a 500,000-name upload's validation. The rest of the body
 * still goes through the schema, and the answer for a bad body names every bad field as parseBody
 * does (the first few bad names at most).
 */
const parseUpload = (raw: unknown) => {
  const list =
    typeof raw === 'object' && raw !== null && Array.isArray((raw as { impactedTargets?: unknown }).impactedTargets)
      ? (raw as { impactedTargets: unknown[] }).impactedTargets
      : undefined;
  const bad: { field: string; message: string }[] = [];
  for (let i = 0; list && i < list.length && bad.length < MAX_NAMED; i++) {
    const name = list[i];
    if (typeof name !== 'string') bad.push({ field: `impactedTargets.${i}`, message: 'a target name must be a string' });
    else if (name.length === 0) bad.push({ field: `impactedTargets.${i}`, message: 'a target name must not be empty' });
  }
  let rest: ReturnType<typeof parseBody<typeof setImpactedTargetsRequest>> | undefined;
  try {
    rest = parseBody(setImpactedTargetsRequest, list ? { ...(raw as object), impactedTargets: [] } : raw);
  } catch (err) {
    if (!(err instanceof ApiError) || bad.length === 0) throw err;
    bad.unshift(...(err.fields ?? []));
  }
  if (bad.length > 0 || !rest)
    throw new ApiError(400, 'VALIDATION_FAILED', `invalid request: ${bad.map((f) => `${f.field}: ${f.message}`).join('; ')}`, bad);
  return { ...rest, impactedTargets: list ? (list as string[]) : rest.impactedTargets };
};

/** Trunk's uploader sends it in place of a token from a PR's fork, whose workflows get no secrets. */
export const FORKED_RUN_HEADER = 'x-forked-workflow-run-id';

const notVerified = (why: string) => new ApiError(401, 'FORKED_RUN_NOT_VERIFIED', `the upload's workflow run was not confirmed: ${why}`);

/**
 * A write token, or, without one, the id of the PR's workflow run: the upload then goes on to
 * `confirmForkedRun` once the body names the repository and the PR. Anything else is the token's 401.
 */
const tokenOrForkedRun = (deps: ApiDeps): RequestHandler => {
  const byToken = requireToken(deps.tokens, 'write');
  return (req, res, next) => {
    const run = req.header(FORKED_RUN_HEADER);
    if (req.header('x-api-token') || !run) return byToken(req, res, next);
    if (!/^[1-9]\d{0,17}$/.test(run)) return next(notVerified(`${FORKED_RUN_HEADER} must be a workflow run id`));
    // Looking a run up costs GitHub requests: an address that failed too often waits, as for tokens.
    const wait = deps.limiter?.authenticationWait(req) ?? 0;
    if (wait > 0)
      return next(
        new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'too many unconfirmed workflow runs from this address', undefined, {
          'Retry-After': String(wait),
        }),
      );
    res.locals.forkedRunId = Number(run);
    res.locals.actor = `github-run:${run}`;
    res.locals.scope = 'write';
    next();
  };
};

/** The head commit a confirmed run vouches for; 401 (counted against the address) when GitHub does not confirm it. */
const confirmForkedRun = async (
  deps: ApiDeps,
  req: Request,
  repo: RepoRef,
  prNumber: number,
  runId: number,
  sha?: string,
): Promise<string> => {
  const refuse = (why: string): never => {
    deps.limiter?.authenticationFailed(req);
    throw notVerified(why);
  };
  if (!deps.forkedRuns) return refuse('this server is not a GitHub App that can look runs up; send x-api-token');
  let verdict;
  try {
    verdict = await deps.forkedRuns(repo, prNumber, runId);
  } catch (err) {
    if (err instanceof GitHostError) return refuse(err.message);
    // GitHub refusing the look-up (the App lacks the actions permission, say) is no confirmation.
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) return refuse(`GitHub answered ${status} looking the run up`);
    throw new ApiError(503, 'CODE_HOST_UNAVAILABLE', 'GitHub did not answer about the workflow run; try again', undefined, {
      'Retry-After': '5',
    });
  }
  if (!verdict.ok) return refuse(verdict.why);
  if (sha && sha.toLowerCase() !== verdict.headSha) return refuse(`run ${runId} ran ${verdict.headSha}, not pr.sha ${sha}`);
  return verdict.headSha;
};

const operation = operationOf<ApiDeps>();

/** What a PR affects, so parallel queues test only what overlaps. */
export const impactedTargetOperations = [
  operation({
    method: 'post',
    path: '/v1/setImpactedTargets',
    operationId: 'setImpactedTargets',
    tag: 'Impacted targets',
    summary: "Upload a PR's impacted targets (parallel queues)",
    description:
      'A list of target names (`[]`: depends on nothing) or the string `ALL`; the last upload for a head SHA wins. A PR from a fork may send `x-forked-workflow-run-id` (its GitHub Actions run) instead of a token: GitHub must confirm the run is of that PR at its head.',
    scope: 'write',
    auth: tokenOrForkedRun,
    parameters: [
      {
        name: FORKED_RUN_HEADER,
        in: 'header',
        required: false,
        description: "Instead of x-api-token, from a PR's fork: the GitHub Actions run uploading, which GitHub must confirm is of that PR",
        schema: z.string(),
        example: '8675309',
      },
    ],
    request: {
      name: 'SetImpactedTargetsRequest',
      schema: setImpactedTargetsRequest,
      example: { ...KEY, pr: { number: 12, sha: PR.prSha }, impactedTargets: ['//services/cache', '//libs/widgets'] },
    },
    input: (req) => parseUpload(req.body),
    response: {
      description: 'What was stored',
      body: {
        name: 'ImpactedTargetsStored',
        schema: setImpactedTargetsResponseSchema,
        example: {
          prNumber: 12,
          headSha: PR.prSha,
          impactsAll: false,
          count: 2,
          digest: 'a3f1c9e2b4d6f8a0c2e4f6a8b0d2f4a6c8e0a2c4e6a8b0d2f4a6c8e0a2c4e6a8',
        },
      },
    },
    errors: [404],
    handle: async (body, ctx) => {
      const { deps } = ctx;
      const { repo, targetBranch, pr } = body;
      const runId = ctx.res.locals.forkedRunId as number | undefined;
      const confirmedSha = runId === undefined ? undefined : await confirmForkedRun(deps, ctx.req, repo, pr.number, runId, pr.sha);
      // Checked before anything is stored: a request that fails leaves nothing behind. With no projector
      // the read below could deny a queue the store holds, so that is refused first (503).
      await deps.commands.ensureWritable();
      if (!(await deps.readModels.getQueue(queueIdOf(repo, targetBranch))))
        throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
      let headSha = confirmedSha ?? pr.sha?.toLowerCase();
      if (!headSha) {
        const snapshot = await deps.gitHost.getPullRequest(repo, pr.number);
        if (!snapshot) throw new ApiError(404, 'PR_NOT_FOUND', `PR #${pr.number} does not exist; send pr.sha to upload for a commit`);
        headSha = snapshot.headSha;
      }
      const list = typeof body.impactedTargets === 'string' ? 'ALL' : body.impactedTargets;
      const targets = await storeTargets(deps.blobs, list);
      await deps.commands.execute(
        { repo, branch: targetBranch },
        { type: 'SetImpactedTargets', prNumber: pr.number, headSha, targets },
        ctx,
      );
      return { prNumber: pr.number, headSha, impactsAll: targets.all, count: targets.count, digest: targets.digest };
    },
  }),
];
