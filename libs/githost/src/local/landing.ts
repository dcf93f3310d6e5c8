import type { MergeMethod } from '@railyard/domain';
import { commitTree, knownAncestor, treeOfCommit, type Identity } from './commits';
import { CommitFacts } from './commit-facts';
import { runGit } from './git-helper';
import { mergeTree } from './merge-tree';
import { commitSummary } from './revisions';

interface RawCommit {
  tree: string;
  parents: string[];
  author: Identity;
  authorDate: string;
  committer: Identity;
  committerDate: string;
  message: string;
}

const PERSON = /^(author|committer) (.*) <(.*)> (\d+ [+-]\d{4})$/;

const commits = new CommitFacts<RawCommit>();

const readCommit = (gitDir: string, sha: string): Promise<RawCommit> => commits.get(gitDir, sha, () => parseCommit(gitDir, sha));

const parseCommit = async (gitDir: string, sha: string): Promise<RawCommit> => {
  const { stdout } = await runGit(gitDir, ['cat-file', 'commit', sha]);
  const split = stdout.indexOf('\n\n');
  const header = split === -1 ? stdout : stdout.slice(0, split);
  const message = split === -1 ? '' : stdout.slice(split + 2);
  const c: RawCommit = {
    tree: '',
    parents: [],
    author: { name: '', email: '' },
    authorDate: '',
    committer: { name: '', email: '' },
    committerDate: '',
    message,
  };
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) c.tree = line.slice(5);
    else if (line.startsWith('parent ')) c.parents.push(line.slice(7));
    else {
      const m = PERSON.exec(line);
      if (m?.[1] === 'author') [c.author, c.authorDate] = [{ name: m[2] ?? '', email: m[3] ?? '' }, m[4] ?? ''];
      if (m?.[1] === 'committer') [c.committer, c.committerDate] = [{ name: m[2] ?? '', email: m[3] ?? '' }, m[4] ?? ''];
    }
  }
  return c;
};

/**
 * Copies the commits of `from.sha..to.sha` (first-parent line: the PR's own commits in the tested
 * stack) onto `onto`, keeping each commit's tree, extra parents, authorship, dates and message. The
 * target's tree must equal `from`'s tree, which makes every copied tree exactly the tested one; and
 * since nothing changes but the first parent, copying the same commits onto the same commit again
 * gives the same ids.
 */
export const copyCommitsOnto = async (gitDir: string, from: string, to: string, onto: string): Promise<string> => {
  const { stdout } = await runGit(gitDir, ['rev-list', '--first-parent', '--reverse', `${from}..${to}`]);
  let parent = onto;
  for (const sha of stdout.split('\n').filter(Boolean)) {
    const c = await readCommit(gitDir, sha);
    parent = await rewrite(gitDir, c, c.tree, parent);
  }
  return parent;
};

/** `c` again with another tree and first parent: its other parents, authorship, dates and message kept. */
const rewrite = (gitDir: string, c: RawCommit, tree: string, firstParent: string): Promise<string> =>
  commitTree(gitDir, {
    tree,
    parents: [firstParent, ...c.parents.slice(1)],
    message: c.message,
    author: c.author,
    committer: c.committer,
    authorDate: c.authorDate,
    committerDate: c.committerDate,
  });

export type Replayed = { ok: true; sha: string } | { ok: false; paths: string[] };

/**
 * Replays the commits of `from..to` (first-parent line) onto `onto` whose tree differs from `from`'s
 * (parallel mode: other lanes merged meanwhile). Each commit is picked as a cherry-pick does: a
 * three-way merge of the commit with a stand-in that holds the current tree on the commit's own first
 * parent, so that parent is the merge base (git 2.39's merge-tree has no --merge-base). Authorship,
 * dates, message and extra parents are kept; only the tree and the first parent change.
 */
export const replayCommitsOnto = async (gitDir: string, from: string, to: string, onto: string): Promise<Replayed> => {
  const { stdout } = await runGit(gitDir, ['rev-list', '--first-parent', '--reverse', `${from}..${to}`]);
  let parent = onto;
  let tree = await treeOfCommit(gitDir, onto);
  for (const sha of stdout.split('\n').filter(Boolean)) {
    const c = await readCommit(gitDir, sha);
    const first = c.parents[0];
    const standIn = await commitTree(gitDir, {
      tree,
      parents: first === undefined ? [] : [first],
      message: 'railyard: replay stand-in\n',
      author: c.committer,
      committer: c.committer,
      authorDate: c.committerDate,
      committerDate: c.committerDate,
    });
    const merged = await mergeTree(gitDir, standIn, sha, { allowUnrelated: first === undefined });
    if (!merged.clean) return { ok: false, paths: merged.conflicts };
    tree = merged.tree;
    parent = await rewrite(gitDir, c, tree, parent);
  }
  return { ok: true, sha: parent };
};

/** Whether `ancestor` is `of` or one of its ancestors; from memory when the commits on the way were written here. */
export const isAncestor = async (gitDir: string, ancestor: string, of: string): Promise<boolean> =>
  knownAncestor(gitDir, ancestor, of) ?? (await runGit(gitDir, ['merge-base', '--is-ancestor', ancestor, of], { okCodes: [1] })).code === 0;

/** The commit a direct merge moves the target to: the PR head is already on top of the target, so its tree is the result. */
export const directMergeCommit = async (
  gitDir: string,
  input: { baseSha: string; headSha: string; prNumber: number; title: string; method: MergeMethod; committer: Identity; date: string },
): Promise<string> => {
  if (input.method === 'rebase') return input.headSha;
  const tree = await treeOfCommit(gitDir, input.headSha);
  if (input.method === 'merge_commit')
    return commitTree(gitDir, {
      tree,
      parents: [input.baseSha, input.headSha],
      message: `Merge pull request #${input.prNumber}\n\n${input.title}\n`,
      author: input.committer,
      committer: input.committer,
      authorDate: input.date,
      committerDate: input.date,
    });
  const head = await commitSummary(gitDir, input.headSha);
  return commitTree(gitDir, {
    tree,
    parents: [input.baseSha],
    message: `${input.title} (#${input.prNumber})\n`,
    author: { name: head.authorName, email: head.authorEmail },
    committer: input.committer,
    authorDate: input.date,
    committerDate: input.date,
  });
};
