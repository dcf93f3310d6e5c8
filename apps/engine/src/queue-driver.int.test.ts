import { execFileSync } from 'node:child_process';
import { entryOf, mergeabilityWindowSize, type QueueState } from '@railyard/domain';
import { branchSha, commitOnBranch, fileAt, gitDirOf, treeOf, writeOldStatusFile } from '@railyard/testkit';
import type { FactsReader } from './facts';
import { driverOn } from './testing/driver-on';
import type { QueueDriver } from '@railyard/queue-driver';
import { BED_REPO, localBed, type LocalBed } from './testing/local-bed';

let bed: LocalBed;
let driver: QueueDriver;
let facts: FactsReader;

beforeEach(async () => {
  bed = await localBed();
  ({ driver, facts } = driverOn(bed));
  await bed.command({ type: 'CreateQueue', queueId: bed.queueId, repo: BED_REPO, branch: 'main', settings: { concurrency: 2 } });
});
afterEach(() => bed.close());

const entry = async (n: number) => entryOf(await bed.read(), n);
const testBranches = (): string[] =>
  execFileSync(
    'git',
    [`--git-dir=${gitDirOf(bed.gitRoot, BED_REPO)}`, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/railyard-merge/'],
    {
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter(Boolean);

describe('QueueDriver on the local git host', () => {
  it('when a PR is submitted and its required status passes on the test branch, then a pass lands exactly the tested tree and sweeps the branch', async () => {
    await bed.openAndSubmit(1);
    expect(await driver.pass({ verify: true })).toBe('settled');
    const run = bed.ci.triggered[0];
    expect(run?.branch).toMatch(/^railyard-merge\/pr-1\//);
    expect((await entry(1))?.state).toBe('testing');

    await bed.ci.post(run?.sha as string, 'success');
    await driver.pass();
    expect((await entry(1))?.state).toBe('merged');
    const main = (await branchSha(bed.gitRoot, BED_REPO, 'main')) as string;
    expect(await treeOf(bed.gitRoot, BED_REPO, main)).toBe(await treeOf(bed.gitRoot, BED_REPO, run?.sha as string));
    expect(await fileAt(bed.gitRoot, BED_REPO, main, 'f1.txt')).toBe('1\n');
    expect(testBranches()).toEqual([]);
  });

  it('when a run was testing during an upgrade and its check passed into the old status file, then the restarted engine lands it without running it again', async () => {
    await bed.openAndSubmit(1);
    await driver.pass({ verify: true });
    const run = bed.ci.triggered[0] as (typeof bed.ci.triggered)[number];
    const at = new Date().toISOString();
    await writeOldStatusFile(bed.gitRoot, BED_REPO, run.sha, [{ context: 'tests', state: 'success', createdAt: at, updatedAt: at }]);

    // A restarted engine: a driver with facts of its own.
    ({ driver, facts } = driverOn(bed));
    await driver.pass({ verify: true });

    expect((await entry(1))?.state).toBe('merged');
    expect(bed.ci.triggered).toHaveLength(1);
  });

  it('when two PRs queue at concurrency 2, then the second is stacked on the first and both land in order', async () => {
    await bed.openAndSubmit(1);
    await bed.openAndSubmit(2);
    await driver.pass({ verify: true });
    expect(bed.ci.triggered.map((t) => t.branch.split('/')[1])).toEqual(['pr-1', 'pr-2']);
    for (const t of [...bed.ci.triggered].reverse()) await bed.ci.post(t.sha, 'success');
    await driver.pass();
    expect([(await entry(1))?.state, (await entry(2))?.state]).toEqual(['merged', 'merged']);
    const main = (await branchSha(bed.gitRoot, BED_REPO, 'main')) as string;
    expect(await treeOf(bed.gitRoot, BED_REPO, main)).toBe(await treeOf(bed.gitRoot, BED_REPO, bed.ci.triggered[1]?.sha as string));
  });

  it('when the PR head is moved with plain git and its run passes, then the old head never lands and the PR is cancelled as pushed to', async () => {
    await bed.openAndSubmit(1);
    await driver.pass({ verify: true });
    const before = await branchSha(bed.gitRoot, BED_REPO, 'main');
    const moved = await commitOnBranch(bed.gitRoot, BED_REPO, { branch: 'pr-1', files: { 'f1.txt': 'again\n' } });
    execFileSync('git', [`--git-dir=${gitDirOf(bed.gitRoot, BED_REPO)}`, 'update-ref', 'refs/pull/1/head', moved]);
    await bed.ci.post(bed.ci.triggered[0]?.sha as string, 'success');
    await driver.pass();
    expect(await branchSha(bed.gitRoot, BED_REPO, 'main')).toBe(before);
    const e = await entry(1);
    expect(e?.state).toBe('cancelled');
  });

  it('when a PR is closed without any notification, then a verification pass cancels it', async () => {
    await bed.openAndSubmit(1);
    await bed.command({ type: 'UpdateQueue', state: 'paused' });
    await driver.pass({ verify: true });
    const { LocalGitAdmin } = await import('@railyard/githost');
    await new LocalGitAdmin({ root: bed.gitRoot }).closePullRequest({ repo: BED_REPO, number: 1 });
    await driver.pass();
    expect((await entry(1))?.state).toBe('pending');
    await driver.pass({ verify: true });
    expect((await entry(1))?.state).toBe('cancelled');
  });

  it('when a PR is submitted before its mergeability is known, then it waits not_ready and starts once the host announces it', async () => {
    const off = bed.host.watch(BED_REPO, ['main'], (e) => facts.onEvent(e));
    try {
      await bed.openAndSubmit(1, '1\n', 'known');
      expect((await entry(1))?.readiness.mergeability).toBe('unspecified');
      expect((await entry(1))?.state).toBe('not_ready');
      // The first pass asks the host, which works it out in the background and announces it.
      await driver.pass({ verify: true });
      for (let i = 0; i < 100 && (await entry(1))?.state === 'not_ready'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        await driver.pass();
      }
      expect((await entry(1))?.readiness.mergeability).toBe('mergeable');
      expect((await entry(1))?.state).toBe('testing');
    } finally {
      off();
    }
  });

  it('when the facts reader hears that a PR of its repository changed, then that queue is planned again; another repository, not', async () => {
    await bed.openAndSubmit(1);
    await bed.command({ type: 'UpdateQueue', state: 'paused' });
    await driver.pass({ verify: true });
    expect(facts.onEvent({ kind: 'pull', repo: BED_REPO, number: 1 })).toEqual([bed.queueId]);
    expect(facts.onEvent({ kind: 'pull', repo: { ...BED_REPO, name: 'other' }, number: 1 })).toEqual([]);
    expect(facts.onEvent({ kind: 'branch', repo: BED_REPO, branch: 'other-branch' })).toEqual([]);
    expect(facts.onEvent({ kind: 'branch', repo: BED_REPO, branch: 'main' })).toEqual([bed.queueId]);
  });
});

describe('mergeability on the local git host, eagerly for the front of the queue and at a bounded rate behind it', () => {
  const RATE = 2;
  const settled = async (prs: number[]): Promise<QueueState> => {
    // The host works each answer out in the background and announces it; each announcement plans the queue again.
    for (let i = 0; i < 200; i++) {
      const s = await bed.read();
      if (prs.every((n) => entryOf(s, n)?.readiness.mergeability === 'mergeable')) return s;
      await new Promise((r) => setTimeout(r, 20));
      await driver.pass();
    }
    return bed.read();
  };

  it('when 40 PRs queue with mergeability unknown, then only the first K are worked out at once, the rest at the rate, and a PR moving into the window gets its answer', async () => {
    let clock = 0;
    ({ driver, facts } = driverOn(bed, () => new Date(), { mergeabilityPerSecond: RATE, now: () => clock }));
    const asked = jest.spyOn(bed.host, 'mergeability');
    const off = bed.host.watch(BED_REPO, ['main'], (e) => facts.onEvent(e));
    try {
      await bed.command({ type: 'UpdateQueue', state: 'paused' });
      for (let n = 1; n <= 40; n++) await bed.openAndSubmit(n, `${n}\n`, 'known');
      const k = mergeabilityWindowSize((await bed.read()).settings);
      const askedPrs = () => asked.mock.calls.map(([, n]) => n);
      const front = Array.from({ length: k }, (_, i) => i + 1);

      await driver.pass({ verify: true });
      expect(askedPrs()).toEqual(front);
      let s = await settled(front);
      expect(front.map((n) => entryOf(s, n)?.readiness.mergeability)).toEqual(front.map(() => 'mergeable'));
      expect(entryOf(s, k + 1)?.readiness.mergeability).toBe('unspecified');
      expect(askedPrs()).toHaveLength(k);

      // A second later, the background rate lets RATE more through, in queue order.
      clock += 1000;
      await driver.pass();
      expect(askedPrs().slice(k)).toEqual([k + 1, k + 2]);

      // The front leaves the queue: the PRs behind it move into the window and are asked at once.
      for (const n of front) await bed.command({ type: 'CancelPullRequest', prNumber: n });
      await driver.pass();
      const next = Array.from({ length: k }, (_, i) => k + 1 + i);
      expect(askedPrs().slice(k + RATE)).toEqual(next.slice(RATE));
      s = await settled(next);
      expect(entryOf(s, 2 * k)?.readiness.mergeability).toBe('mergeable');
      expect(entryOf(s, 2 * k + 1)?.readiness.mergeability).toBe('unspecified');
    } finally {
      off();
      asked.mockRestore();
    }
    // Forty PRs opened on real git: over a minute of set-up at load 10 (no timing is asserted).
  }, 240_000);
});
