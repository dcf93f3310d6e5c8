import type { RepoRef } from '@railyard/domain';
import { GITHUB_HOST, githubBedEach, type GithubBed } from '../../../../test/contract/support/github-bed';

// GithubCi's re-runs on the fake GitHub (docs/github.md, "Flake re-runs"): what it re-requests, and
// what it leaves alone when a restarted engine triggers a running re-run again.

jest.setTimeout(60_000);

const FULL = 'acme/widgets';
const REPO: RepoRef = { host: GITHUB_HOST, owner: 'acme', name: 'widgets' };
const RERUN_ROUTE = 'POST /repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest';

let bed: GithubBed;
githubBedEach((b) => (bed = b));

const reruns = () => bed.fake.requests.byRoute()[RERUN_ROUTE] ?? 0;

/** A test branch of one PR whose CI fails `ci` on the first attempt and then as `rerun` says; its tip once `ci` failed. */
const failedOnce = async (rerun: 'success' | 'failure' = 'success'): Promise<{ sha: string; branch: string }> => {
  bed.fake.ci.configure(FULL, {
    branches: (b) => b.startsWith('railyard-merge/'),
    checks: [{ name: 'ci', outcome: ({ attempt }) => (attempt === 1 ? 'failure' : rerun) }],
  });
  await bed.fake.commit({ repo: FULL, branch: 'feature', from: 'main', files: { 'f.txt': 'f\n' } });
  const pr = await bed.fake.openPullRequest({ repo: FULL, head: 'feature', base: 'main' });
  const base = (await bed.host.branchHead(REPO, 'main')) as { sha: string };
  const built = await bed.host.buildTestBranch(REPO, {
    baseSha: base.sha,
    stack: [{ number: pr.number, headSha: pr.headSha }],
    method: 'merge_commit',
    testRunId: 'r1',
    prNumber: pr.number,
  });
  if (!built.ok) throw new Error('conflict');
  await statesOf(built.sha, 'failure');
  return { sha: built.sha, branch: built.branch };
};

/** Waits until the reports on `sha` say `ci` is `state`. */
const statesOf = async (sha: string, state: string): Promise<void> => {
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    await bed.fake.webhooks.settled();
    if ((await bed.ci.statuses(REPO, sha)).some((s) => s.context === 'ci' && s.state === state)) return;
  }
  throw new Error(`ci never reported ${state} on ${sha}`);
};

describe('GithubCi re-runs on GitHub', () => {
  it('when a re-run is triggered after a check run failed, then its suite is re-requested once and the check passes on the same commit', async () => {
    const { sha } = await failedOnce();
    expect(await bed.ci.rerunnableChecks(REPO, sha)).toEqual(new Set(['ci']));
    await bed.ci.trigger({ repo: REPO, sha, testRunId: 'r2', rerun: { contexts: ['ci'], attempt: 1 } });
    expect(reruns()).toBe(1);
    await statesOf(sha, 'success');
  });

  it('when a restarted engine triggers the re-run again after the check failed again, then that failure is the answer and nothing is re-requested twice', async () => {
    const { sha } = await failedOnce('failure');
    const trigger = { repo: REPO, sha, testRunId: 'r2', rerun: { contexts: ['ci'], attempt: 1 } };
    await bed.ci.trigger(trigger);
    for (const end = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const done = bed.fake.checkRuns(FULL, sha).filter((r) => r.name === 'ci' && r.status === 'completed');
      if (done.length === 2) break;
      if (Date.now() > end) throw new Error('the re-run never completed');
    }
    await bed.fake.webhooks.settled();
    // What a restart does: GithubCi forgets its runs and is triggered with the same re-run.
    await bed.ci.close();
    await bed.ci.trigger(trigger);
    expect(reruns()).toBe(1);
  });

  it('when a run is triggered that is no re-run, then nothing is read or re-requested', async () => {
    const { sha } = await failedOnce();
    bed.fake.requests.reset();
    await bed.ci.trigger({ repo: REPO, sha, testRunId: 'r3' });
    expect(bed.fake.requests.count()).toBe(0);
  });
});
