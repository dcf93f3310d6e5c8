import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { repoBed, treeOf } from '@railyard/testkit';
import { runGit } from './git-helper';
import { commitTree, treeOfCommit } from './commits';
import { isAncestor } from './landing';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'commits' };
const bed = repoBed(repo, { files: { 'a.txt': 'a\n' } });
const who = { name: 'Railyard', email: 'railyard@example.test' };
const dropObject = (sha: string): Promise<void> => fs.rm(path.join(bed.gitDir, 'objects', sha.slice(0, 2), sha.slice(2)));

describe('commitTree', () => {
  it('when it writes a commit, then that commit’s tree is answered from memory, without reading the commit', async () => {
    const tree = await treeOf(bed.root, repo, 'main');
    const sha = await commitTree(bed.gitDir, { tree, parents: [], message: 'remembered\n', author: who, committer: who });
    // The commit object is gone: only what commitTree remembered can answer (issue 26: one git less per landing).
    await dropObject(sha);
    await expect(treeOfCommit(bed.gitDir, sha)).resolves.toBe(tree);
  });

  it('when it wrote a line of commits, then their ancestry is answered from memory; what it cannot tell, git answers', async () => {
    const base = (await runGit(bed.gitDir, ['rev-parse', 'main'])).stdout.trim();
    const tree = await treeOf(bed.root, repo, 'main');
    const first = await commitTree(bed.gitDir, { tree, parents: [base], message: 'one\n', author: who, committer: who });
    const second = await commitTree(bed.gitDir, { tree, parents: [first], message: 'two\n', author: who, committer: who });
    expect(await isAncestor(bed.gitDir, second, base)).toBe(false);
    // The commits written are gone: only the parents commitTree remembered can tell (a landing's merge-base, issue 26).
    await dropObject(first);
    await dropObject(second);
    await expect(isAncestor(bed.gitDir, base, second)).resolves.toBe(true);
    await expect(isAncestor(bed.gitDir, first, second)).resolves.toBe(true);
  });
});
