import path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { MemoryEventStore } from '@railyard/eventstore';
import { localHostStatuses } from '@railyard/githost';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { createLocalCi, type LocalCi } from './local-ci';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const INFRA = 'infrastructure error CI_SANDBOX_UNAVAILABLE: bubblewrap is missing';
let dir: string;
let sha: string;
let ci: LocalCi;
let eventStore: MemoryEventStore;

beforeEach(async () => {
  dir = await makeTempDir();
  const gitRoot = path.join(dir, 'git');
  ({ sha } = await createRepoWithCommits(gitRoot, repo));
  eventStore = new MemoryEventStore();
  ci = await createLocalCi({
    settings: { dataDir: dir, gitRoot, concurrency: 1, killGraceMs: 100, sandbox: 'off' },
    eventStore,
    publicUrl: () => 'http://railyard.test',
  });
});
afterEach(async () => {
  await ci.close();
  await removeTempDir(dir);
});

describe('LocalCi.statuses', () => {
  it('when a token posts an error worded like an infrastructure error, then it is a plain error; the local CI’s own is an infrastructure error', async () => {
    const api = localHostStatuses({ eventStore, gitRoot: path.join(dir, 'git'), actor: 'api' });
    await api.set(repo, sha, { context: 'ext', state: 'error', description: INFRA, reporter: 'token:ci' });
    await ci.statusStore.set(repo, sha, { context: 'test', state: 'error', description: INFRA, reporter: 'local-ci' });
    const seen = await ci.statuses(repo, sha);
    expect(seen.map((s) => [s.context, s.reporter, s.infrastructureError?.code])).toEqual([
      ['ext', 'token:ci', undefined],
      ['test', 'local-ci', 'CI_SANDBOX_UNAVAILABLE'],
    ]);
    await api.close();
  });
});
