import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { LocalGitAdmin, RefReader, repoDirOf, runGit } from '@railyard/githost';

/** Path → content; null deletes the path. Paths use `/` and may be nested (`src/a.ts`). */
export type FileChanges = Record<string, string | null>;

export interface CommitOptions {
  files: FileChanges;
  /** Path → target: symbolic links, stored as git stores them (mode 120000), as a pushed branch would hold them. */
  links?: Record<string, string>;
  message?: string;
  /** Author and committer; fixed defaults keep tests independent of the machine's git config. */
  author?: { name: string; email: string };
}

export interface CommitOnBranchOptions extends CommitOptions {
  branch: string;
  /** Where a branch that does not exist yet starts: a branch name or commit id. Default: main. */
  from?: string;
}

const DEFAULT_AUTHOR = { name: 'Test Author', email: 'author@example.test' };

export const gitDirOf = (root: string, repo: RepoRef): string => {
  const dir = repoDirOf(root, repo);
  if (dir === null) throw new Error(`invalid repository name ${JSON.stringify(repo)}`);
  return dir;
};

/** A bare repository with one commit holding `files` on main. Returns the repository and that commit. */
export const createRepoWithCommits = async (
  root: string,
  repo: RepoRef,
  opts: CommitOptions = { files: { 'README.md': '# test\n' } },
): Promise<{ gitDir: string; sha: string }> => {
  const gitDir = await new LocalGitAdmin({ root }).initRepository(repo);
  const sha = await commitOnBranch(root, repo, { ...opts, branch: 'main', message: opts.message ?? 'initial commit' });
  return { gitDir, sha };
};

/**
 * Commits `files` on top of `branch` (creating it from `from` if it does not exist) with git's
 * plumbing and a scratch index, so no working tree is needed. Returns the new commit's id.
 */
export const commitOnBranch = async (root: string, repo: RepoRef, opts: CommitOnBranchOptions): Promise<string> => {
  const gitDir = gitDirOf(root, repo);
  const refs = new RefReader(1);
  const ref = `refs/heads/${opts.branch}`;
  const current = await refs.read(gitDir, ref);
  const parent = current ?? (await revParse(gitDir, opts.from ?? 'main'));
  const author = opts.author ?? DEFAULT_AUTHOR;
  const env = {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'railyard-index-'));
  try {
    const indexEnv = { ...env, GIT_INDEX_FILE: path.join(scratch, 'index') };
    if (parent !== null) await runGit(gitDir, ['read-tree', parent], { env: indexEnv });
    // --index-info works in a bare repository (--force-remove wants a work tree); mode 0 removes a path.
    const entries: string[] = [];
    for (const [file, content] of Object.entries(opts.files)) {
      if (content === null) {
        entries.push(`0 ${'0'.repeat(40)}\t${file}\0`);
        continue;
      }
      const blob = (await runGit(gitDir, ['hash-object', '-w', '--stdin'], { input: content })).stdout.trim();
      entries.push(`100644 ${blob}\t${file}\0`);
    }
    for (const [link, target] of Object.entries(opts.links ?? {})) {
      const blob = (await runGit(gitDir, ['hash-object', '-w', '--stdin'], { input: target })).stdout.trim();
      entries.push(`120000 ${blob}\t${link}\0`);
    }
    await runGit(gitDir, ['update-index', '-z', '--index-info'], { env: indexEnv, input: entries.join('') });
    const tree = (await runGit(gitDir, ['write-tree'], { env: indexEnv })).stdout.trim();
    const parentArgs = parent === null ? [] : ['-p', parent];
    const message = opts.message ?? `change ${[...Object.keys(opts.files), ...Object.keys(opts.links ?? {})].join(', ')}`;
    const sha = (await runGit(gitDir, ['commit-tree', tree, ...parentArgs], { env, input: message })).stdout.trim();
    // Compare-and-swap on the old value, so two helpers racing on one branch fail instead of losing a commit.
    await runGit(gitDir, ['update-ref', ref, sha, current ?? '']);
    return sha;
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
};

/** The commit a branch or commit id names, or null for a repository with no commits yet. */
const revParse = async (gitDir: string, rev: string): Promise<string | null> => {
  const { code, stdout } = await runGit(gitDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    okCodes: [1, 128],
  });
  return code === 0 ? stdout.trim() : null;
};

/** Where a branch points now (null when it does not exist). */
export const branchSha = (root: string, repo: RepoRef, branch: string): Promise<string | null> =>
  new RefReader(1).read(gitDirOf(root, repo), `refs/heads/${branch}`);

/** The tree of a commit, to compare what was tested with what was merged. */
export const treeOf = async (root: string, repo: RepoRef, commit: string): Promise<string> =>
  (await runGit(gitDirOf(root, repo), ['rev-parse', `${commit}^{tree}`])).stdout.trim();

/** The content of `file` at `commit`, or null when the commit has no such file. */
export const fileAt = async (root: string, repo: RepoRef, commit: string, file: string): Promise<string | null> => {
  const { code, stdout } = await runGit(gitDirOf(root, repo), ['cat-file', 'blob', `${commit}:${file}`], { okCodes: [128] });
  return code === 0 ? stdout : null;
};

/**
 * The parent count of every merge-base stand-in commit a squash build wrote (test-branch.ts): they
 * are unreachable, so the object store is read, in two `cat-file` runs whatever its size.
 */
export const standInParentCounts = async (root: string, repo: RepoRef): Promise<number[]> => {
  const gitDir = gitDirOf(root, repo);
  const objects = await runGit(gitDir, ['cat-file', '--batch-all-objects', '--batch-check=%(objecttype) %(objectname)']);
  const commits = objects.stdout.split('\n').filter((l) => l.startsWith('commit '));
  const bodies = await runGit(gitDir, ['cat-file', '--batch'], { input: commits.map((l) => `${l.slice('commit '.length)}\n`).join('') });
  return bodies.stdout
    .split(/^[0-9a-f]{40} commit \d+$/m)
    .filter((body) => body.includes('\nrailyard: merge base stand-in\n'))
    .map((body) => (body.match(/^parent /gm) ?? []).length);
};
