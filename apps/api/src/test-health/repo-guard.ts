import { PageQueryError, type RepoRef } from '@railyard/testhealth';
import { ApiError } from '../http/errors';
import type { TestHealthContext } from './context';

export const requireRepo = async (th: TestHealthContext, repo: RepoRef): Promise<void> => {
  if (!(await th.facts.exists(repo))) throw new ApiError(404, 'REPO_NOT_FOUND', 'no such repository on the git host');
};

/** Test ids are computed with one organisation slug; a list for another one would always be empty, so say so. */
export const requireOrg = (th: TestHealthContext, slug: string): void => {
  if (slug !== th.config.orgSlug)
    throw new ApiError(404, 'ORG_NOT_FOUND', `this server's organisation is "${th.config.orgSlug}" (RAILYARD_ORG_SLUG), not "${slug}"`);
};

/** Page query mistakes are the client's: 400 with the paging code. */
export const asPageError = (err: unknown): never => {
  if (err instanceof PageQueryError) throw new ApiError(400, err.code, err.message);
  throw err;
};
