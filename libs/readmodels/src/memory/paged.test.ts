import { deserialize, serialize } from 'node:v8';
import { queueStreamOf, QUEUE_EVENT_SCHEMA_VERSION } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import { MemoryReadModelStore } from '../queue/memory/store';
import { StreamRecorder } from '../testing/recorded';
import { testQueueId } from '../testing/fixtures';
import { scriptedQueueHistory } from '../testing/metrics';
import { PagedInMemory } from '../testing/paged';

const queueId = testQueueId();
const t = (minute: number): string => new Date(Date.UTC(2025, 0, 6, 9, minute)).toISOString();
const history = (): RecordedEvent[] =>
  new StreamRecorder(QUEUE_EVENT_SCHEMA_VERSION, 'ci', 1n, 3n).recordOn(queueStreamOf(queueId), ...scriptedQueueHistory(queueId, t));

/** Every answer the queue store gives for the scripted queue. */
const answers = async (store: MemoryReadModelStore): Promise<unknown> => {
  const all = await store.listPrs(queueId, { take: 100 });
  const pages = [await store.listPrs(queueId, { take: 2 }), await store.listPrs(queueId, { take: 2, afterPrNumber: 2 })];
  const byState = await store.listPrs(queueId, { take: 100, state: 'merged' });
  const prs = await Promise.all(
    all.prs.map(async (p) => [await store.getPr(queueId, p.prNumber), await store.getPrAnswer(queueId, p.prNumber)]),
  );
  const runs = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8'].map((id) => store.getTestRun(queueId, id)));
  return { queue: await store.getQueueAnswer(queueId), all, pages, byState, prs, runs };
};

describe('read models that page cold documents out (D320)', () => {
  it('when terminal PRs and finished runs are paged out at every snapshot, then every answer equals the store that kept all in memory', async () => {
    const events = history();
    const expected = new MemoryReadModelStore();
    await expected.apply(events);
    const paged = new PagedInMemory();
    const store = new MemoryReadModelStore();
    store.pageTo(paged);
    for (const e of events) {
      await store.apply([e]);
      const snap = store.snapshot();
      paged.put(snap?.pagedOut ?? []);
      store.pagedOutDone(snap?.pagedOut ?? []);
    }
    expect([...paged.rows.values()].some((r) => r.kind === 'pr')).toBe(true);
    expect([...paged.rows.values()].some((r) => r.kind === 'run')).toBe(true);
    expect(await answers(store)).toEqual(await answers(expected));
  });

  it('when a store resumes from a snapshot with its paged documents and folds the rest, then it answers as the store that folded everything', async () => {
    const events = history();
    const expected = new MemoryReadModelStore();
    await expected.apply(events);
    // Cut after PR 3 failed and before it is submitted again: the re-submission reads its paged document back.
    const cut = events.findIndex((e) => e.type === 'PrFailed') + 1;
    const paged = new PagedInMemory();
    const before = new MemoryReadModelStore();
    before.pageTo(paged);
    await before.apply(events.slice(0, cut));
    const snap = before.snapshot();
    if (!snap) throw new Error('no snapshot of a store that folded events');
    paged.put(snap.pagedOut);
    const body = deserialize(serialize(snap.body)) as { prs: Map<string, unknown> };
    expect(body.prs.size).toBeLessThan((await expected.listPrs(queueId, { take: 100 })).prs.length);

    const after = new MemoryReadModelStore();
    after.pageTo(paged);
    after.restore(snap.position, body);
    await after.apply(events);
    expect(await answers(after)).toEqual(await answers(expected));
  });

  it('when a store that pages is reset, then its paged documents are forgotten with it', async () => {
    const paged = new PagedInMemory();
    const store = new MemoryReadModelStore();
    store.pageTo(paged);
    await store.apply(history());
    paged.put(store.snapshot()?.pagedOut ?? []);
    expect(paged.rows.size).toBeGreaterThan(0);
    await store.reset();
    expect(paged.rows.size).toBe(0);
  });
});
