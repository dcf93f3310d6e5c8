import { createHash } from 'node:crypto';
import { Router } from 'express';
import { setImpactedTargetsRequest } from '@railyard/api-schema';
import { queueIdOf, type TargetsRef } from '@railyard/domain';
import type { BlobStore } from '@railyard/eventstore';
import type { ApiDeps } from '../deps';
import { ApiError } from '../http/errors';
import { parseBody } from '../http/validate';
import { postRoute } from './route';

const ALL_DIGEST = createHash('sha256').update('ALL').digest('hex');

/**
 * Stores the list once, content-addressed: sorted and de-duplicated, one name a line. Events carry
 * only the digest and count, so a 20 MiB upload never becomes a 20 MiB event.
 */
export const storeTargets = async (blobs: BlobStore, targets: string[] | 'ALL'): Promise<TargetsRef> => {
  if (targets === 'ALL') return { digest: ALL_DIGEST, count: 0, all: true };
  const unique = [...new Set(targets)].sort();
  const digest = await blobs.put(Buffer.from(unique.join('\n'), 'utf8'));
  return { digest, count: unique.length, all: false };
};

export const impactedTargetRoutes = (deps: ApiDeps): Router => {
  const router = Router();
  postRoute(router, deps, '/setImpactedTargets', 'write', async (raw, ctx) => {
    const body = parseBody(setImpactedTargetsRequest, raw);
    const { repo, targetBranch, pr } = body;
    // Checked before anything is stored: a request that fails leaves nothing behind.
    if (!(await deps.readModels.getQueue(queueIdOf(repo, targetBranch))))
      throw new ApiError(404, 'QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
    let headSha = pr.sha?.toLowerCase();
    if (!headSha) {
      const snapshot = await deps.gitHost.getPullRequest(repo, pr.number);
      if (!snapshot) throw new ApiError(404, 'PR_NOT_FOUND', `PR #${pr.number} does not exist; send pr.sha to upload for a commit`);
      headSha = snapshot.headSha;
    }
    const list = typeof body.impactedTargets === 'string' ? 'ALL' : body.impactedTargets;
    const targets = await storeTargets(deps.blobs, list);
    await deps.commands.execute(repo, targetBranch, { type: 'SetImpactedTargets', prNumber: pr.number, headSha, targets }, ctx);
    return { prNumber: pr.number, headSha, impactsAll: targets.all, count: targets.count, digest: targets.digest };
  });
  return router;
};
