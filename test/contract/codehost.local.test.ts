import path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { LocalCodeHost, LocalGitAdmin, localHostStatuses } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, fileAt, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import { codeHostContract } from './codehost.contract';

const REPO: RepoRef = { host: 'git.contract', owner: 'acme', name: 'widgets' };

codeHostContract('local git host', async () => {
  const dir = await makeTempDir('railyard-codehost-');
  const root = path.join(dir, 'git');
  await createRepoWithCommits(root, REPO, { files: { 'README.md': '# widgets\n' } });
  const eventStore = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const statuses = localHostStatuses({ eventStore, gitRoot: root });
  const host = new LocalCodeHost({ root, statuses });
  const admin = new LocalGitAdmin({ root });
  return {
    host,
    repo: REPO,
    base: 'main',
    openPr: async (number, files) => {
      const sha = await commitOnBranch(root, REPO, { branch: `pr-${number}`, from: 'main', files });
      await openPr(root, { repo: REPO, number, head: `pr-${number}` });
      return sha;
    },
    pushToPr: async (number, files) => {
      const sha = await commitOnBranch(root, REPO, { branch: `pr-${number}`, files });
      await admin.updatePullRequest({ repo: REPO, number, head: sha });
      return sha;
    },
    pushToBranch: (branch, files) => commitOnBranch(root, REPO, { branch, files }),
    postStatus: async (sha, context, state) => {
      await statuses.set(REPO, sha, { context, state });
    },
    fileAt: (sha, file) => fileAt(root, REPO, sha, file),
    close: async () => {
      await host.close();
      await statuses.close();
      await eventStore.close();
      await removeTempDir(dir);
    },
  };
});
