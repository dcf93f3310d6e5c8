import path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { createLogger } from '@railyard/observability';
import { branchSha, commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { LocalCi } from './local-ci';

const REPO: RepoRef = { host: 'git.local', owner: 'acme', name: 'ci' };
let root: string;
let ci: LocalCi;

const shaWith = async (files: Record<string, string>): Promise<string> => {
  await commitOnBranch(root, REPO, { branch: 'main', files });
  return (await branchSha(root, REPO, 'main')) as string;
};

const settled = async (sha: string, count: number) => {
  for (;;) {
    const statuses = await ci.statuses(REPO, sha);
    if (statuses.length === count && statuses.every((s) => s.state !== 'pending')) return statuses;
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeEach(async () => {
  root = await makeTempDir('railyard-engine-ci-');
  await createRepoWithCommits(root, REPO, { files: { 'README.md': '# r\n' } });
  ci = new LocalCi({ gitRoot: root, workDir: path.join(root, 'ci'), logger: createLogger('test', 'silent') });
});
afterEach(async () => {
  await ci.close();
  await removeTempDir(root);
});

describe('LocalCi', () => {
  it('when a run is triggered, then each check of .railyard.yml reports pending then its result, with a log url', async () => {
    const sha = await shaWith({ '.railyard.yml': 'ci:\n  ok: "test -f README.md"\n  bad: "exit 3"\n', 'README.md': 'x\n' });
    const changes: string[] = [];
    ci.onChange((_repo, s) => changes.push(s));
    await ci.trigger({ repo: REPO, sha, branch: 'railyard-merge/pr-1/r1', testRunId: 'r1', timeoutMinutes: 1 });
    const statuses = await settled(sha, 2);
    expect(Object.fromEntries(statuses.map((s) => [s.context, s.state]))).toEqual({ ok: 'success', bad: 'failure' });
    expect(statuses.every((s) => s.url?.startsWith('file://'))).toBe(true);
    expect(changes.length).toBeGreaterThanOrEqual(4);
    expect(ci.isRunning('r1')).toBe(true);
  });

  it.each([
    ['the queue sets a list', ['build'], 'ci:\n  a: "true"\n', { statuses: ['build'], source: 'merge_instance' }],
    ['.railyard.yml sets merge.required_statuses', [], 'merge:\n  required_statuses: [a, b]\n', { statuses: ['a', 'b'], source: 'trunk_config' }],
    ['nothing sets them', [], 'ci:\n  a: "true"\n', { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES' }],
    ['the file is broken', [], 'merge: [\n', { error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' }],
  ])('when %s, then required statuses resolve accordingly', async (_what, queueList, config, expected) => {
    const sha = await shaWith({ '.railyard.yml': config });
    expect(await ci.resolveRequiredStatuses({ queueList, repo: REPO, sha })).toMatchObject(expected);
  });

  it('when .trunk/trunk.yaml lists required statuses and .railyard.yml does not, then they come from it', async () => {
    const sha = await shaWith({ '.trunk/trunk.yaml': 'version: 0.1\nmerge:\n  required_statuses:\n    - Unit Tests\n' });
    expect(await ci.resolveRequiredStatuses({ queueList: [], repo: REPO, sha })).toEqual({ statuses: ['Unit Tests'], source: 'trunk_config' });
  });

  it('when a run is cancelled, then its checks stop and report nothing more', async () => {
    const sha = await shaWith({ '.railyard.yml': 'ci:\n  slow: "sleep 30"\n' });
    await ci.trigger({ repo: REPO, sha, branch: 'b', testRunId: 'r2', timeoutMinutes: 1 });
    await new Promise((r) => setTimeout(r, 300));
    await ci.cancel('r2');
    await new Promise((r) => setTimeout(r, 300));
    expect(await ci.statuses(REPO, sha)).toEqual([{ context: 'slow', state: 'pending' }]);
  });
});
