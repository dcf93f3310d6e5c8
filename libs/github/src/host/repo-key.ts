import { formatRepo, type RepoRef } from '@railyard/domain';

/** A repository as a map key: GitHub compares owners and names without regard to case. */
export const repoKey = (repo: RepoRef): string => formatRepo(repo).toLowerCase();
