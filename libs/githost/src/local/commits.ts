import { GitHostError } from '../errors';
import { CommitFacts } from './commit-facts';
import { runGit } from './git-helper';
import { isObjectId } from './names';

export interface Identity {
  name: string;
  email: string;
}

export interface CommitSpec {
  tree: string;
  parents: readonly string[];
  message: string;
  author: Identity;
  committer: Identity;
  /** git's internal date format, `<unix seconds> <+hhmm>`; git's clock when absent. */
  authorDate?: string;
  committerDate?: string;
}

const trees = new CommitFacts<string>();
const parentsOf = new CommitFacts<readonly string[]>();

/**
 * Writes a commit object (git commit-tree) and returns its id; no ref moves. The commit's tree and
 * parents are remembered: the engine asks for both again when it lands the commit on the target (a
 * `rev-parse` and a `merge-base --is-ancestor`, two more processes on the path from a verdict to the
 * next check, issue 26).
 */
export const commitTree = async (gitDir: string, spec: CommitSpec): Promise<string> => {
  const env: Record<string, string> = {
    GIT_AUTHOR_NAME: spec.author.name,
    GIT_AUTHOR_EMAIL: spec.author.email,
    GIT_COMMITTER_NAME: spec.committer.name,
    GIT_COMMITTER_EMAIL: spec.committer.email,
  };
  if (spec.authorDate !== undefined) env.GIT_AUTHOR_DATE = spec.authorDate;
  if (spec.committerDate !== undefined) env.GIT_COMMITTER_DATE = spec.committerDate;
  const parents = spec.parents.flatMap((p) => ['-p', p]);
  const { stdout } = await runGit(gitDir, ['commit-tree', spec.tree, ...parents], { env, input: spec.message });
  const sha = stdout.trim();
  if (isObjectId(spec.tree)) trees.remember(gitDir, sha, spec.tree);
  if (spec.parents.every(isObjectId)) parentsOf.remember(gitDir, sha, [...spec.parents]);
  return sha;
};

/** Commits visited at most when answering an ancestry from memory: a stack of a few PRs is a few commits. */
const KNOWN_WALK = 256;

/**
 * True when `ancestor` is reached from `of` through parents this process wrote (commitTree):
 * a commit's parents never change, so a path found once holds forever. Undefined when memory cannot
 * tell (a commit written elsewhere on the way): git answers then.
 */
export const knownAncestor = (gitDir: string, ancestor: string, of: string): true | undefined => {
  if (parentsOf.peek(gitDir, of) === undefined) return undefined;
  const todo = [of];
  const seen = new Set<string>();
  while (todo.length > 0 && seen.size < KNOWN_WALK) {
    const sha = todo.pop() as string;
    if (sha === ancestor) return true;
    if (seen.has(sha)) continue;
    seen.add(sha);
    todo.push(...(parentsOf.peek(gitDir, sha) ?? []));
  }
  return undefined;
};

export const treeOfCommit = (gitDir: string, commit: string): Promise<string> =>
  trees.get(gitDir, commit, async () => (await runGit(gitDir, ['rev-parse', '--verify', `${commit}^{tree}`])).stdout.trim());

export interface CommitInfo {
  sha: string;
  parents: string[];
  author: Identity;
  authorDate: string;
  message: string;
}

const FIELD = '\x1f';

/**
 * The commits reachable from `head` and from none of `exclude`, without merge commits, oldest first
 * and parents before children: what a rebase replays. Authors and dates come back in the form
 * commit-tree takes them.
 */
export const commitsToReplay = async (gitDir: string, exclude: readonly string[], head: string): Promise<CommitInfo[]> => {
  const format = ['%H', '%P', '%an', '%ae', '%ad', '%B'].join('%x1f');
  const args = [
    'log',
    '-z',
    '--no-merges',
    '--topo-order',
    '--reverse',
    '--date=raw',
    `--format=${format}`,
    head,
    ...exclude.map((sha) => `^${sha}`),
  ];
  const { stdout } = await runGit(gitDir, args);
  return stdout
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const fields = record.split(FIELD);
      if (fields.length < 6)
        throw new GitHostError('GIT_FAILED', `git log gave an unreadable record: ${JSON.stringify(record.slice(0, 80))}`);
      const [sha = '', parents = '', name = '', email = '', date = ''] = fields;
      // The message is last, so a stray separator inside it only splits what we join back.
      return {
        sha,
        parents: parents.split(' ').filter(Boolean),
        author: { name, email },
        authorDate: date,
        message: fields.slice(5).join(FIELD),
      };
    });
};
