import { createHash } from 'node:crypto';
import { initialQueueState, evolve, type QueueEvent, type QueueState, type TargetsRef } from '@railyard/domain';
import { createBlobStore, type BlobStore } from '@railyard/eventstore';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { TargetOverlapsCache } from './targets';

let dir: string;
let blobs: BlobStore;
beforeEach(async () => {
  dir = await makeTempDir('railyard-engine-targets-');
  blobs = await createBlobStore({ kind: 'fs', dir });
});
afterEach(async () => {
  await blobs.close();
  await removeTempDir(dir);
});

const AT = '2025-06-01T09:00:00.000Z';
const store = async (names: string[]): Promise<TargetsRef> => ({
  digest: await blobs.put(Buffer.from(names.join('\n'))),
  count: names.length,
  all: false,
});

/** A queue in `mode` whose PR n (head `h<n>`) uploaded `lists[n]`; PRs in `gone` were cancelled since. */
const queue = (mode: 'single' | 'parallel', lists: Record<number, TargetsRef>, gone: number[] = []): QueueState => {
  const events: QueueEvent[] = [
    {
      type: 'QueueCreated',
      data: {
        queueId: 'q',
        repo: { host: 'h', owner: 'o', name: 'n' },
        branch: 'main',
        settings: { ...initialQueueState().settings, mode },
        requiredStatuses: [],
        state: 'running',
        at: AT,
      },
    },
  ];
  for (const [n, ref] of Object.entries(lists)) {
    const prNumber = Number(n);
    events.push({ type: 'ImpactedTargetsSet', data: { prNumber, headSha: `h${n}`, ...ref, at: AT } });
    events.push({
      type: 'PrSubmitted',
      data: {
        entryId: `e${n}`,
        prNumber,
        title: 't',
        headSha: `h${n}`,
        author: 'a',
        baseBranch: 'main',
        priorityValue: 100,
        priorityName: 'medium',
        noBatch: false,
        readiness: { requiresImpactedTargets: true, hasImpactedTargets: true, doesBaseBranchMatch: true, mergeability: 'mergeable' },
        state: 'pending',
        reason: 'API_REQUESTED',
        at: AT,
      },
    });
  }
  for (const prNumber of gone) events.push({ type: 'PrCancelled', data: { prNumber, reason: 'API_REQUESTED', at: AT } });
  return events.reduce(evolve, initialQueueState());
};

describe('TargetOverlapsCache', () => {
  it('when a parallel queue holds PRs, then their lists are read from the blob store and overlaps answered by digest', async () => {
    const [a, b, c] = await Promise.all([store(['//x:1', '//y:1']), store(['//y:1']), store(['//z:1'])]);
    const overlaps = await new TargetOverlapsCache(blobs).forQueue(queue('parallel', { 1: a, 2: b, 3: c }));
    expect([...(overlaps?.neighbours(a.digest) ?? [])]).toEqual([b.digest]);
    expect([...(overlaps?.neighbours(c.digest) ?? [])]).toEqual([]);
  });

  it('when a PR leaves the queue, then its list is dropped from the index', async () => {
    const [a, other] = await Promise.all([store(['//x:1']), store(['//x:1', '//other'])]);
    const cache = new TargetOverlapsCache(blobs);
    expect([...((await cache.forQueue(queue('parallel', { 1: a, 2: other })))?.neighbours(a.digest) ?? [])]).toEqual([other.digest]);
    const after = await cache.forQueue(queue('parallel', { 1: a, 2: other }, [2]));
    expect(after?.neighbours(other.digest)).toBeUndefined();
    expect([...(after?.neighbours(a.digest) ?? [])]).toEqual([]);
  });

  it('when a blob is missing, then its list stays unknown, which the planner treats as impacting everything', async () => {
    const missing: TargetsRef = { digest: createHash('sha256').update('never stored').digest('hex'), count: 3, all: false };
    const overlaps = await new TargetOverlapsCache(blobs).forQueue(queue('parallel', { 1: missing }));
    expect(overlaps?.neighbours(missing.digest)).toBeUndefined();
  });

  it('when the queue is in single mode, then nothing is read or kept', async () => {
    expect(await new TargetOverlapsCache(blobs).forQueue(queue('single', { 1: await store(['//x:1']) }))).toBeUndefined();
  });
});
