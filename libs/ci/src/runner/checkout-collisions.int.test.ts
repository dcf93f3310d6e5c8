import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { LocalCommitStatusStore, runGit } from '@railyard/githost';
import { commitOnBranch, gitDirOf, repoBed } from '@railyard/testkit';
import { checkFileName } from '../urls';
import { LocalCiRunner } from './local-ci-runner';

jest.setTimeout(300_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'throughput' };
const RUNS = 64;
const CONCURRENCY = 16;

const bed = repoBed(repo, { gitSubdir: 'git', per: 'file' });
let statuses: LocalCommitStatusStore;
let runner: LocalCiRunner;

// Inside the describe, so these hooks end before the bed (a top-level hook) removes the repository.
describe('checkouts of concurrent checks sharing one name', () => {
  beforeAll(async () => {
    statuses = new LocalCommitStatusStore({ root: bed.root });
    runner = new LocalCiRunner({
      gitRoot: bed.root,
      dataDir: bed.dir,
      statuses,
      publicUrl: () => 'http://railyard.test',
      concurrency: CONCURRENCY,
    });
  });

  afterAll(async () => {
    await runner.close();
    await statuses.close();
  });

  it(`when ${RUNS} runs of a check named "test" run ${CONCURRENCY} at a time beside git's housekeeping, then every one starts and reports its own verdict`, async () => {
    // Every third commit carries a failing verdict: a check's result depends only on its commit.
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const verdict = i % 3 === 0 ? 'fail' : 'pass';
      const sha = await commitOnBranch(bed.root, repo, {
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
      while (pruning) await runGit(gitDirOf(bed.root, repo), ['worktree', 'prune']);
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
      const log = await fs.readFile(path.join(bed.dir, 'ci-logs', r.testRunId, checkFileName('test')), 'utf8').catch(() => '');
      wrong.push({ expected: r.expected, got: status?.state, description: status?.description, log: log.split('\n').slice(-4).join('\n') });
    }
    expect(wrong).toEqual([]);
  });
});
