import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CODEOWNERS_PATHS, isTestRunId, parseCodeowners, type Codeowners, type RepoFacts, type RepoRef } from '@railyard/testhealth';
import { LRUCache } from 'lru-cache';
import { runGit } from './git-helper';
import { isObjectId, repoDirOf } from './names';
import { RefReader } from './refs';

const EMPTY_CODEOWNERS = parseCodeowners('');

/**
 * Test health's RepoFacts on the local git host's bare repositories: that a repository exists,
 * its default branch, the tree of a commit, and its CODEOWNERS. Refs are read from files; git runs
 * only for an object not seen before, and answers are cached by commit (commits never change).
 */
export class LocalRepoFacts implements RepoFacts {
  private readonly refs = new RefReader();
  private readonly trees = new LRUCache<string, string>({ max: 10_000 });
  private readonly owners = new LRUCache<string, Promise<Codeowners>>({ max: 256 });

  constructor(private readonly gitRoot: string) {}

  private dirOf(repo: RepoRef): string | null {
    return repoDirOf(this.gitRoot, repo);
  }

  async exists(repo: RepoRef): Promise<boolean> {
    const dir = this.dirOf(repo);
    if (!dir) return false;
    return fs.stat(path.join(dir, 'HEAD')).then(
      () => true,
      () => false,
    );
  }

  /** The branch HEAD names in the bare repository (`main` for a repository created the usual way). */
  async defaultBranch(repo: RepoRef): Promise<string | null> {
    const dir = this.dirOf(repo);
    if (!dir) return null;
    const head = await fs.readFile(path.join(dir, 'HEAD'), 'utf8').catch(() => null);
    const match = head?.trim().match(/^ref: refs\/heads\/(.+)$/);
    return match?.[1] ?? null;
  }

  /** The commit's tree, or null when the host does not have the commit (CI may run ahead of a mirror). */
  async treeOf(repo: RepoRef, sha: string): Promise<string | null> {
    const dir = this.dirOf(repo);
    if (!dir || !isObjectId(sha)) return null;
    const key = `${dir}\u0000${sha}`;
    const known = this.trees.get(key);
    if (known !== undefined) return known;
    const result = await runGit(dir, ['rev-parse', '--verify', '--quiet', `${sha}^{tree}`], { okCodes: [1, 128] });
    const tree = result.code === 0 && isObjectId(result.stdout.trim()) ? result.stdout.trim() : null;
    // Only hits are kept: a commit missing now may be pushed a moment later.
    if (tree) this.trees.set(key, tree);
    return tree;
  }

  /** The merge queue's test branch of a run (`railyard-merge/pr-<n>/<testRunId>`), if it still exists. */
  async testBranchOf(repo: RepoRef, testRunId: string): Promise<string | null> {
    const dir = this.dirOf(repo);
    if (!dir || !isTestRunId(testRunId)) return null;
    // git refuses to list the refs of a directory that is no repository: an unknown one has no test branch.
    if (!(await this.exists(repo))) return null;
    const listed = await runGit(dir, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/railyard-merge/']);
    return listed.stdout.split('\n').find((b) => b.endsWith(`/${testRunId}`)) ?? null;
  }

  /** CODEOWNERS of the default branch as it is now; an empty set of rules when there is none. */
  async codeowners(repo: RepoRef): Promise<Codeowners> {
    const dir = this.dirOf(repo);
    const branch = await this.defaultBranch(repo);
    if (!dir || !branch) return EMPTY_CODEOWNERS;
    const commit = await this.refs.read(dir, `refs/heads/${branch}`);
    if (!commit) return EMPTY_CODEOWNERS;
    const key = `${dir}\u0000${commit}`;
    let cached = this.owners.get(key);
    if (!cached) {
      cached = this.readCodeowners(dir, commit);
      this.owners.set(key, cached);
      cached.catch(() => this.owners.delete(key));
    }
    return cached;
  }

  private async readCodeowners(dir: string, commit: string): Promise<Codeowners> {
    for (const file of CODEOWNERS_PATHS) {
      const shown = await runGit(dir, ['cat-file', 'blob', `${commit}:${file}`], { okCodes: [128] });
      if (shown.code === 0) return parseCodeowners(shown.stdout);
    }
    return EMPTY_CODEOWNERS;
  }
}
