import type { RepoRef } from '@railyard/domain';
import { MemoryEventStore } from '@railyard/eventstore';
import { createRepoWithCommits, makeTempDir, removeTempDir, writeOldStatusFile } from '@railyard/testkit';
import { localHostStatuses } from './local-statuses';
import type { CommitStatus } from './port';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };

let root: string;
let sha: string;

beforeEach(async () => {
  root = await makeTempDir();
  ({ sha } = await createRepoWithCommits(root, repo));
});

afterEach(() => removeTempDir(root));

const build: CommitStatus = {
  context: 'build',
  state: 'pending',
  createdAt: '2026-01-01T09:00:00.000Z',
  updatedAt: '2026-01-01T09:00:00.000Z',
};
const lint: CommitStatus = {
  context: 'lint',
  state: 'success',
  createdAt: '2026-01-01T09:01:00.000Z',
  updatedAt: '2026-01-01T09:01:00.000Z',
};

describe('localHostStatuses after an upgrade from status files', () => {
  it('when an older version left statuses in a file, then list answers them beneath the events and a new report replaces its context', async () => {
    await writeOldStatusFile(root, repo, sha, [build, lint]);
    const store = localHostStatuses({
      eventStore: new MemoryEventStore(),
      gitRoot: root,
      clock: () => new Date('2026-01-01T10:00:00.000Z'),
    });
    expect(await store.list(repo, sha)).toEqual([build, lint]);

    const answer = await store.set(repo, sha, { context: 'build', state: 'success' });

    const passed = { context: 'build', state: 'success', createdAt: build.createdAt, updatedAt: '2026-01-01T10:00:00.000Z' };
    expect(answer).toEqual(passed);
    expect(await store.list(repo, sha)).toEqual([passed, lint]);
    await store.close();
  });

  it('when the old file is damaged, then list says so as CORRUPT_STATUS_FILE rather than answering no statuses', async () => {
    await writeOldStatusFile(root, repo, sha, [], '{"version":1,');
    const store = localHostStatuses({ eventStore: new MemoryEventStore(), gitRoot: root });
    await expect(store.list(repo, sha)).rejects.toMatchObject({ code: 'CORRUPT_STATUS_FILE' });
    await store.close();
  });
});
