import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { MemoryEventStore } from '@railyard/eventstore';
import { localHostStatuses, runGit, type CommitStatusStore } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, gitDirOf, makeTempDir, removeTempDir } from '@railyard/testkit';
import { checkFileName } from '../urls';
import { LocalCiRunner } from './local-ci-runner';

jest.setTimeout(300_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'throughput' };
const RUNS = 64;
const CONCURRENCY = 16;

let root: string;
let gitRoot: string;
let statuses: CommitStatusStore;
let runner: LocalCiRunner;

beforeAll(async () => {
  root = await makeTempDir();
  gitRoot = path.join(root, 'git');
  await createRepoWithCommits(gitRoot, repo);
  statuses = localHostStatuses({ eventStore: new MemoryEventStore(), gitRoot });
  runner = new LocalCiRunner({ gitRoot, dataDir: root, statuses, publicUrl: () => 'http://railyard.test', concurrency: CONCURRENCY });
});

afterAll(async () => {
  await runner.close();
  await statuses.close();
  await removeTempDir(root);
});

describe('checkouts of concurrent checks sharing one name', () => {
  it(`when ${RUNS} runs of a check named "test" run ${CONCURRENCY} at a time beside git's housekeeping, then every one starts and reports its own verdict`, async () => {
    // Every third commit carries a failing verdict: a check's result depends only on its commit.
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const verdict = i % 3 === 0 ? 'fail' : 'pass';
      const sha = await commitOnBranch(gitRoot, repo, {
        branch: `railyard-merge/pr-${i}/run`,
        files: { '.railyard.yml': 'ci:\n  test: "test \\"$(cat verdict)\\" = pass"\n', verdict: `${verdict}\n`, run: `${i}\n` },
      });
      runs.push({
        sha,
        expected: verdict === 'pass' ? 'success' : 'failure',
        testRunId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      });
    }
    // `git gc` prunes worktree records (`git worktree prune`), and so did every finished checkout of
    // the worktree-based runner, which raced with the adds of the others: run it alongside, as a busy
    // repository would.
    let pruning = true;
    const pruner = (async () => {
      while (pruning) await runGit(gitDirOf(gitRoot, repo), ['worktree', 'prune']);
    })();
    try {
      await Promise.all(runs.map((r) => runner.trigger({ repo, sha: r.sha, branch: 'b', testRunId: r.testRunId, timeoutMinutes: 5 })));
      await Promise.all(runs.map((r) => runner.whenDone(r.testRunId)));
    } finally {
      pruning = false;
      await pruner;
    }
    const wrong = [];
    for (const r of runs) {
      const status = (await statuses.list(repo, r.sha)).find((s) => s.context === 'test');
      if (status?.state === r.expected) continue;
      // The log's last lines say why, in the failure message.
      const log = await fs.readFile(path.join(root, 'ci-logs', r.testRunId, checkFileName('test')), 'utf8').catch(() => '');
      wrong.push({ expected: r.expected, got: status?.state, description: status?.description, log: log.split('\n').slice(-4).join('\n') });
    }
    expect(wrong).toEqual([]);
  });
});
