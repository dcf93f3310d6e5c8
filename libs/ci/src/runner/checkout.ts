import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from '@railyard/githost';

/**
 * A checkout of `sha` at `dir` that is a repository of its own: `git init`, the bare repository's
 * objects borrowed through `objects/info/alternates` (nothing copied, nothing fetched), then a
 * detached checkout. No state is shared with the bare repository or with other checkouts, unlike
 * `git worktree add`, whose admin directory (`worktrees/<last path segment>`) raced with every
 * other add and prune (docs/ci.md). Nothing of the bare repository is written, and a check sees
 * only the objects, which the sandbox mounts read-only.
 */
export const makeCheckout = async (gitDir: string, dir: string, sha: string): Promise<void> => {
  await initRepository(dir);
  const info = path.join(dir, '.git', 'objects', 'info');
  await fs.mkdir(info, { recursive: true });
  await fs.writeFile(path.join(info, 'alternates'), `${path.resolve(gitDir, 'objects')}\n`);
  await runGit(path.join(dir, '.git'), [`--work-tree=${dir}`, 'checkout', '--quiet', '--detach', sha, '--']);
};

/** What `git init` wrote into `.git`, by relative path: a file's bytes, or null for a directory. */
type Skeleton = Map<string, Buffer | null>;

let skeleton: Promise<Skeleton> | undefined;

/**
 * `git init` once per process; every later repository is written from what that one wrote. With an
 * empty template the repository holds nothing of its own path or commit (HEAD, config, empty object
 * and ref directories), and each `git init` was one more process before every check started, 5–10 ms
 * where process creation is slow (issue 26). A skeleton that cannot be read means `git init` again.
 */
const initRepository = async (dir: string): Promise<void> => {
  const known = await skeleton?.catch(() => undefined);
  if (known) return writeSkeleton(path.join(dir, '.git'), known);
  // An empty template: no sample hooks or other files copied per checkout.
  await runGit(null, ['init', '--quiet', '--template=', dir]);
  skeleton = readSkeleton(path.join(dir, '.git'));
  await skeleton.catch(() => (skeleton = undefined));
};

const readSkeleton = async (gitDir: string): Promise<Skeleton> => {
  const out: Skeleton = new Map();
  for (const entry of await fs.readdir(gitDir, { recursive: true, withFileTypes: true })) {
    const rel = path.relative(gitDir, path.join(entry.parentPath, entry.name));
    if (entry.isDirectory()) out.set(rel, null);
    else if (entry.isFile()) out.set(rel, await fs.readFile(path.join(gitDir, rel)));
    else throw new Error(`git init made ${rel}, neither a file nor a directory`);
  }
  return out;
};

const writeSkeleton = async (gitDir: string, known: Skeleton): Promise<void> => {
  await fs.mkdir(gitDir, { recursive: true });
  // Sorted by path, a directory comes before what it holds.
  for (const [rel, bytes] of [...known].sort(([a], [b]) => (a < b ? -1 : 1)))
    if (bytes === null) await fs.mkdir(path.join(gitDir, rel), { recursive: true });
    else await fs.writeFile(path.join(gitDir, rel), bytes, { flag: 'wx' });
};

/** Removes a checkout; one already gone is fine. Nothing to tell git: it never knew about it. */
export const removeCheckout = (dir: string): Promise<void> => fs.rm(dir, { recursive: true, force: true });
