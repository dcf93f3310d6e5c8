import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import * as githost from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { makeCheckout } from './checkout';

jest.mock('@railyard/githost', () => {
  const actual = jest.requireActual<typeof githost>('@railyard/githost');
  return { ...actual, runGit: jest.fn(actual.runGit) };
});

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'checkouts' };
let root: string;

beforeAll(async () => {
  root = await makeTempDir();
});
afterAll(() => removeTempDir(root));

/** Every file and directory under `dir`, with each file's bytes. */
const contentOf = async (dir: string): Promise<string[]> => {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(e.parentPath, e.name);
    out.push(`${path.relative(dir, file)}${e.isFile() ? `: ${await fs.readFile(file, 'utf8')}` : '/'}`);
  }
  return out.sort();
};

describe('makeCheckout', () => {
  it('when a second checkout is made, then its repository is the one git init made for the first, written without git init', async () => {
    await createRepoWithCommits(root, repo, { files: { 'a.txt': 'a\n' } });
    const gitDir = githost.repoDirOf(root, repo) as string;
    const first = await commitOnBranch(root, repo, { branch: 'main', files: { 'b.txt': 'b\n' } });
    const second = await commitOnBranch(root, repo, { branch: 'main', files: { 'c.txt': 'c\n' } });
    const runGit = githost.runGit as jest.Mock;
    runGit.mockClear();

    await makeCheckout(gitDir, path.join(root, 'one'), first);
    await makeCheckout(gitDir, path.join(root, 'two'), second);

    const inits = runGit.mock.calls.filter(([, args]) => (args as string[])[0] === 'init');
    // One git process less before every check but the first (issue 26).
    expect(inits).toHaveLength(1);
    expect(await fs.readFile(path.join(root, 'two', 'c.txt'), 'utf8')).toBe('c\n');
    const status = await githost.runGit(path.join(root, 'two', '.git'), [`--work-tree=${path.join(root, 'two')}`, 'status', '--porcelain']);
    expect(status.stdout).toBe('');
    // The same files in both (HEAD, its log and the index name each one's own commit), the same config.
    const names = async (dir: string) => (await contentOf(dir)).map((f) => f.split(':')[0]);
    expect(await names(path.join(root, 'two', '.git'))).toEqual(await names(path.join(root, 'one', '.git')));
    const config = (dir: string) => fs.readFile(path.join(root, dir, '.git', 'config'), 'utf8');
    expect(await config('two')).toBe(await config('one'));
  });
});
