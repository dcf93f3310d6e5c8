import type { RepoRef } from '@railyard/domain';
import { existingRepoDir, formatRepo, GitHostError, runGit } from '@railyard/githost';

/**
 * Answers whether a sha is a commit of a repository on the local host. A commit, once there, stays
 * (until a gc of unreachable objects), so positive answers are remembered.
 */
export class CommitChecker {
  private readonly known = new Set<string>();

  constructor(
    private readonly gitRoot: string,
    private readonly capacity = 10_000,
  ) {}

  /** Throws GitHostError REPO_NOT_FOUND (or INVALID_INPUT for a name that cannot exist) before looking at the sha. */
  async assertCommit(repo: RepoRef, sha: string): Promise<void> {
    const key = `${formatRepo(repo)}@${sha}`;
    const gitDir = await existingRepoDir(this.gitRoot, repo);
    if (this.known.has(key)) return;
    const { code, stdout } = await runGit(gitDir, ['cat-file', '-t', sha], { okCodes: [1, 128] });
    if (code !== 0 || stdout.trim() !== 'commit') throw new GitHostError('REVISION_NOT_FOUND', `no commit ${sha} in ${formatRepo(repo)}`);
    if (this.known.size >= this.capacity) this.known.clear();
    this.known.add(key);
  }
}
