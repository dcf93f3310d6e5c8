import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isObjectId, isValidBranchName, runGit } from '@railyard/githost';

/** The git plumbing the fake GitHub answers from: every fact it reports about code is read from a real bare repository. */

export interface GitIdentity {
  name: string;
  email: string;
  /** ISO 8601, as GitHub reports it. */
  date: string;
}

export interface CommitObject {
  sha: string;
  tree: string;
  parents: string[];
  author: GitIdentity;
  committer: GitIdentity;
  message: string;
}

export interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size?: number;
}

const ZERO = '0'.repeat(40);

/**
 * Ref names the API takes after `refs/` (`heads/main`, `pull/3/head`): each part a valid branch
 * name part, so a ref never leaves the refs directory or reaches git as an option.
 */
export const isValidRefTail = (tail: string): boolean => isValidBranchName(tail) && tail.split('/').length >= 2;

export const initBareRepository = async (gitDir: string, defaultBranch: string): Promise<void> => {
  await fs.mkdir(path.dirname(gitDir), { recursive: true });
  await runGit(null, ['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, gitDir]);
};

/** Lets `gitDir` read the objects of `otherGitDir`, as repositories of one fork network share storage on GitHub. */
export const shareObjects = async (gitDir: string, otherGitDir: string): Promise<void> => {
  const file = path.join(gitDir, 'objects', 'info', 'alternates');
  const line = path.join(otherGitDir, 'objects');
  const existing = await fs.readFile(file, 'utf8').catch(() => '');
  if (!existing.split('\n').includes(line)) await fs.writeFile(file, `${existing}${line}\n`);
};

export const readRef = async (gitDir: string, ref: string): Promise<string | null> => {
  const { code, stdout } = await runGit(gitDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', ref], { okCodes: [1] });
  return code === 0 ? stdout.trim() : null;
};

/** Every ref under `prefix` (e.g. `refs/heads/`), sorted by name. */
export const listRefs = async (gitDir: string, prefix: string): Promise<{ ref: string; sha: string }[]> => {
  const { stdout } = await runGit(gitDir, ['for-each-ref', '--format=%(refname) %(objectname)', '--end-of-options', prefix]);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [ref = '', sha = ''] = line.split(' ');
      return { ref, sha };
    });
};

/** Moves `ref` to `sha` only if it still points at `expected` (null: only if it does not exist). False when it moved meanwhile. */
export const compareAndSwapRef = async (gitDir: string, ref: string, sha: string, expected: string | null): Promise<boolean> => {
  const { code } = await runGit(gitDir, ['update-ref', '--end-of-options', ref, sha, expected ?? ZERO], { okCodes: [128] });
  return code === 0;
};

export const deleteRef = async (gitDir: string, ref: string, expected: string): Promise<boolean> => {
  const { code } = await runGit(gitDir, ['update-ref', '-d', '--end-of-options', ref, expected], { okCodes: [128] });
  return code === 0;
};

export const objectType = async (gitDir: string, sha: string): Promise<string | null> => {
  if (!isObjectId(sha)) return null;
  const { code, stdout } = await runGit(gitDir, ['cat-file', '-t', sha], { okCodes: [128] });
  return code === 0 ? stdout.trim() : null;
};

export const isAncestor = async (gitDir: string, ancestor: string, descendant: string): Promise<boolean> => {
  const { code } = await runGit(gitDir, ['merge-base', '--is-ancestor', ancestor, descendant], { okCodes: [1] });
  return code === 0;
};

export const mergeBase = async (gitDir: string, a: string, b: string): Promise<string | null> => {
  const { code, stdout } = await runGit(gitDir, ['merge-base', a, b], { okCodes: [1] });
  return code === 0 ? stdout.trim() : null;
};

const identityOf = (line: string): GitIdentity => {
  const match = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: '', date: new Date(0).toISOString() };
  const [, name = '', email = '', seconds = '0'] = match;
  return { name, email, date: new Date(Number(seconds) * 1000).toISOString().replace('.000Z', 'Z') };
};

/** A commit read from its raw object, so names, dates and the message come back exactly as stored. */
export const readCommit = async (gitDir: string, sha: string): Promise<CommitObject | null> => {
  if ((await objectType(gitDir, sha)) !== 'commit') return null;
  const { stdout } = await runGit(gitDir, ['cat-file', 'commit', sha]);
  const split = stdout.indexOf('\n\n');
  const headers = (split === -1 ? stdout : stdout.slice(0, split)).split('\n');
  const message = split === -1 ? '' : stdout.slice(split + 2);
  const commit: CommitObject = { sha, tree: '', parents: [], author: identityOf(''), committer: identityOf(''), message };
  for (const header of headers) {
    const space = header.indexOf(' ');
    const [key, value] = [header.slice(0, space), header.slice(space + 1)];
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = identityOf(value);
    else if (key === 'committer') commit.committer = identityOf(value);
  }
  return commit;
};

/** Commits reachable from `head` but not from `base`, oldest first, at most `limit`. */
export const commitsBetween = async (gitDir: string, base: string, head: string, limit: number): Promise<string[]> => {
  const { stdout } = await runGit(gitDir, ['rev-list', '--reverse', '--topo-order', head, `^${base}`]);
  return stdout
    .split('\n')
    .filter((sha) => sha !== '')
    .slice(0, limit);
};

export const countCommitsBetween = async (gitDir: string, base: string, head: string): Promise<number> =>
  Number((await runGit(gitDir, ['rev-list', '--count', head, `^${base}`])).stdout.trim());

export const listTree = async (gitDir: string, treeish: string, recursive: boolean): Promise<TreeEntry[]> => {
  const args = ['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), '--end-of-options', treeish];
  const { stdout } = await runGit(gitDir, args);
  return stdout
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode = '', type = '', sha = '', size = '-'] = line.slice(0, tab).split(/ +/);
      const entry: TreeEntry = { path: line.slice(tab + 1), mode, type: type as TreeEntry['type'], sha };
      if (size !== '-') entry.size = Number(size);
      return entry;
    });
};

/** The object at `filePath` in `commit` (a blob or a tree), or null. */
export const entryAt = async (gitDir: string, commit: string, filePath: string): Promise<TreeEntry | null> => {
  const parent = path.posix.dirname(filePath);
  const entries = await listTree(gitDir, parent === '.' ? commit : `${commit}:${parent}`, false).catch(() => null);
  return entries?.find((entry) => entry.path === path.posix.basename(filePath)) ?? null;
};

export const readBlob = async (gitDir: string, sha: string): Promise<Buffer> => {
  const { stdout } = await runGit(gitDir, ['cat-file', 'blob', sha]);
  return Buffer.from(stdout, 'utf8');
};

/** Lines added and removed and files changed from `base` to `head`, as a pull request's counters report them. */
export const diffStats = async (
  gitDir: string,
  base: string,
  head: string,
): Promise<{ additions: number; deletions: number; files: number }> => {
  const { stdout } = await runGit(gitDir, ['diff', '--numstat', '-z', base, head]);
  let additions = 0;
  let deletions = 0;
  let files = 0;
  for (const record of stdout.split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t/.exec(record);
    if (!match) continue;
    files += 1;
    additions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
  }
  return { additions, deletions, files };
};

/** Paths a commit added, removed and modified against its first parent (everything, for a root commit). */
export const changedPaths = async (gitDir: string, sha: string): Promise<{ added: string[]; removed: string[]; modified: string[] }> => {
  const commit = await readCommit(gitDir, sha);
  const parent = commit?.parents[0];
  const args =
    parent === undefined
      ? ['diff-tree', '-r', '-z', '--name-status', '--root', sha]
      : ['diff-tree', '-r', '-z', '--name-status', parent, sha];
  const fields = (await runGit(gitDir, args)).stdout.split('\0').filter((f) => f !== '');
  const out = { added: [] as string[], removed: [] as string[], modified: [] as string[] };
  // With --root the first field is the commit id itself.
  const start = parent === undefined && fields[0] === sha ? 1 : 0;
  for (let i = start; i + 1 < fields.length; i += 2) {
    const [status, file] = [fields[i] as string, fields[i + 1] as string];
    if (status.startsWith('A')) out.added.push(file);
    else if (status.startsWith('D')) out.removed.push(file);
    else out.modified.push(file);
  }
  return out;
};

export interface FileChange {
  path: string;
  status: 'added' | 'removed' | 'modified';
  /** The blob after the change; null for a removed file. */
  blob: string | null;
  additions: number;
  deletions: number;
}

/** The files `head` changes against `base`, with their line counts, as GitHub lists a commit's `files`. */
export const fileChanges = async (gitDir: string, base: string, head: string): Promise<FileChange[]> => {
  const raw = (await runGit(gitDir, ['diff-tree', '-r', '-z', '--no-renames', '--raw', base, head])).stdout.split('\0');
  const counts = new Map<string, { additions: number; deletions: number }>();
  for (const record of (await runGit(gitDir, ['diff-tree', '-r', '-z', '--no-renames', '--numstat', base, head])).stdout.split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(record);
    if (match) counts.set(match[3] as string, { additions: Number(match[1]) || 0, deletions: Number(match[2]) || 0 });
  }
  const out: FileChange[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const meta = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) ([AMD])/.exec(raw[i] as string);
    const path = raw[i + 1] as string;
    if (!meta) continue;
    const status = meta[2] === 'A' ? 'added' : meta[2] === 'D' ? 'removed' : 'modified';
    out.push({
      path,
      status,
      blob: status === 'removed' ? null : (meta[1] as string),
      ...(counts.get(path) ?? { additions: 0, deletions: 0 }),
    });
  }
  return out;
};

/** The commit `name` means in `gitDir`: a branch, a tag or a (possibly abbreviated) commit id; null when none. */
export const resolveCommitish = async (gitDir: string, name: string): Promise<string | null> => {
  if (name.startsWith('-') || name.includes('..')) return null;
  for (const candidate of [`refs/heads/${name}`, `refs/tags/${name}`, name]) {
    const sha = await readRef(gitDir, `${candidate}^{commit}`);
    if (sha !== null) return sha;
  }
  return null;
};
