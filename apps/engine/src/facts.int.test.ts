import { entryOf } from '@railyard/domain';
import { FactsReader, READS_PER_TURN, SUBMITTED_QUIET_MS } from './facts';
import { BED_REPO, localBed, type LocalBed } from './testing/local-bed';

let bed: LocalBed;
let facts: FactsReader;

beforeEach(async () => {
  bed = await localBed();
  facts = new FactsReader(bed.host, bed.ci);
  await bed.command({ type: 'CreateQueue', queueId: bed.queueId, repo: BED_REPO, branch: 'main', settings: {} });
  await bed.command({ type: 'UpdateQueue', state: 'paused' });
});
afterEach(() => bed.close());

const pullsNow = async () => (await facts.read(await bed.read(), { verify: false })).pulls;

describe('FactsReader keeps the PR facts shown to the planner from pass to pass (docs/decisions.md D28)', () => {
  it('when nothing changed since the last pass, then no PR is read again and the same facts are shown', async () => {
    for (const n of [1, 2, 3]) await bed.openAndSubmit(n);
    const first = new Map(await pullsNow());
    const reads = jest.spyOn(bed.host, 'pullRequest');
    expect(new Map(await pullsNow())).toEqual(first);
    expect(reads).not.toHaveBeenCalled();
    expect([...first.keys()]).toEqual([1, 2, 3]);
  });

  it('when the host announces a change to one PR, then only that PR is read again', async () => {
    for (const n of [1, 2, 3]) await bed.openAndSubmit(n);
    await pullsNow();
    const reads = jest.spyOn(bed.host, 'pullRequest');
    facts.onEvent({ kind: 'pull', repo: BED_REPO, number: 2 });
    await pullsNow();
    expect(reads.mock.calls.map(([, n]) => n)).toEqual([2]);
  });

  it('when a PR leaves the queue or a new one comes, then the facts follow the entries', async () => {
    for (const n of [1, 2]) await bed.openAndSubmit(n);
    await pullsNow();
    await bed.command({ type: 'CancelPullRequest', prNumber: 1 });
    await bed.openAndSubmit(3);
    expect([...(await pullsNow()).keys()].sort()).toEqual([2, 3]);
  });

  it('when a waiting PR is announced mergeable, then the next pass shows its mergeability', async () => {
    await bed.openAndSubmit(1, '1\n', 'known');
    expect((await pullsNow()).get(1)?.mergeability).toBeUndefined();
    const head = entryOf(await bed.read(), 1)?.headSha as string;
    facts.onEvent({ kind: 'mergeability', repo: BED_REPO, number: 1, headSha: head, mergeability: 'mergeable' });
    expect((await pullsNow()).get(1)?.mergeability).toBe('mergeable');
  });
});

describe('FactsReader learns a submitted PR from its submission event (docs/decisions.md D28)', () => {
  let clock = 1_000_000;
  const submitted = async (n: number) => {
    const e = entryOf(await bed.read(), n);
    if (!e) throw new Error(`PR ${n} not submitted`);
    return { number: n, title: e.title, author: 'someone', headSha: e.headSha, baseBranch: 'main', state: 'open' as const };
  };

  beforeEach(() => {
    facts = new FactsReader(bed.host, bed.ci, undefined, { now: () => clock });
  });

  it('when the event told the PR, then the next pass reads no PR file and shows its head', async () => {
    await bed.openAndSubmit(1);
    await pullsNow();
    const head = await bed.openAndSubmit(2);
    facts.learnSubmitted(bed.queueId, await submitted(2));
    const reads = jest.spyOn(bed.host, 'pullRequest');
    expect((await pullsNow()).get(2)?.headSha).toBe(head);
    expect(reads).not.toHaveBeenCalled();
  });

  it('when the host announced a change to the PR shortly before, then the pass reads it from the host', async () => {
    await bed.openAndSubmit(1);
    await pullsNow();
    await bed.openAndSubmit(2);
    facts.onEvent({ kind: 'pull', repo: BED_REPO, number: 2 });
    clock += SUBMITTED_QUIET_MS - 1;
    facts.learnSubmitted(bed.queueId, await submitted(2));
    const reads = jest.spyOn(bed.host, 'pullRequest');
    await pullsNow();
    expect(reads.mock.calls.map(([, n]) => n)).toEqual([2]);
  });

  it('when the queue was never read, then nothing is learnt and its first pass reads every PR', async () => {
    await bed.openAndSubmit(1);
    facts.learnSubmitted(bed.queueId, await submitted(1));
    const reads = jest.spyOn(bed.host, 'pullRequest');
    await pullsNow();
    expect(reads.mock.calls.map(([, n]) => n)).toEqual([1]);
  });
});

describe('FactsReader reading many PRs', () => {
  it('when a pass reads more PRs than READS_PER_TURN, then other work runs between the reads', async () => {
    const count = READS_PER_TURN * 2 + 1;
    for (let n = 1; n <= count; n++) {
      const pr = {
        number: n,
        title: `PR ${n}`,
        author: 'a',
        headSha: `${n}`.padStart(40, '0'),
        baseBranch: 'main',
        state: 'open' as const,
      };
      await bed.command({ type: 'SubmitPullRequest', pr: { ...pr, mergeability: 'mergeable' } });
    }
    let turned = false;
    const seen: boolean[] = [];
    jest.spyOn(bed.host, 'pullRequest').mockImplementation(async (_repo, n) => {
      if (seen.length === 0) setImmediate(() => (turned = true));
      seen.push(turned);
      return { number: n, title: `PR ${n}`, author: 'a', headSha: `${n}`.padStart(40, '0'), baseBranch: 'main', state: 'open' };
    });
    await facts.read(await bed.read(), { verify: true });
    expect(seen).toHaveLength(count);
    expect(seen.slice(0, READS_PER_TURN - 1).every((t) => !t)).toBe(true);
    expect(seen[seen.length - 1]).toBe(true);
  });
});
