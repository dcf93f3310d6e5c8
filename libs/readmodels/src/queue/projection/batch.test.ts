import type { RecordedEvent } from '@railyard/eventstore';
import { prCancelled, prSubmitted, queueCreated, queueDeleted, testQueueId } from '../../testing/fixtures';
import { RecordedEventFactory } from '../../testing/recorded';
import { foldBatch, prKeyOf, targetsOfBatch, type DocSet } from './batch';

const A = testQueueId('main');
const B = testQueueId('next');
const AT = '2026-01-01T00:00:00.000Z';
const empty = (): DocSet => ({ queues: new Map(), prs: new Map() });

describe('targetsOfBatch', () => {
  it('when a batch spans queues and PRs, then each queue and each PR is named once', () => {
    const f = new RecordedEventFactory();
    const events = [
      ...f.record(A, queueCreated(A, AT), prSubmitted(1, AT), prCancelled(1, AT)),
      ...f.record(B, queueCreated(B, AT), prSubmitted(1, AT)),
    ];
    const targets = targetsOfBatch(events);
    expect([...targets.queueIds]).toEqual([A, B]);
    expect([...targets.prs.values()]).toEqual([
      { queueId: A, prNumber: 1 },
      { queueId: B, prNumber: 1 },
    ]);
  });

  it('when an event is not from a queue stream, then it names nothing', () => {
    const [e] = new RecordedEventFactory().record(A, queueCreated(A, AT));
    expect(targetsOfBatch([{ ...(e as RecordedEvent), streamId: 'other-1' }]).queueIds.size).toBe(0);
  });
});

describe('foldBatch', () => {
  it('when events change documents, then exactly those are reported changed', () => {
    const f = new RecordedEventFactory();
    const docs = empty();
    foldBatch(docs, f.record(A, queueCreated(A, AT), prSubmitted(1, AT), prSubmitted(2, AT)));
    const changes = foldBatch(docs, f.record(A, prCancelled(2, AT), prCancelled(9, AT)));
    expect([...changes.queueIds]).toEqual([A]);
    expect([...changes.prKeys]).toEqual([prKeyOf(A, 2)]);
    expect(changes.regenerated.size).toBe(0);
    expect(docs.prs.get(prKeyOf(A, 9)) ?? null).toBeNull();
  });

  it('when a queue is created or deleted, then it is reported regenerated', () => {
    const f = new RecordedEventFactory();
    const docs = empty();
    expect([...foldBatch(docs, f.record(A, queueCreated(A, AT))).regenerated]).toEqual([A]);
    expect([...foldBatch(docs, f.record(A, prSubmitted(1, AT))).regenerated]).toEqual([]);
    expect([...foldBatch(docs, f.record(A, prCancelled(1, AT), queueDeleted(AT))).regenerated]).toEqual([A]);
  });

  it('when the same events are folded twice, then the second fold changes nothing', () => {
    const events = new RecordedEventFactory().record(A, queueCreated(A, AT), prSubmitted(1, AT));
    const docs = empty();
    foldBatch(docs, events);
    const changes = foldBatch(docs, events);
    expect(changes.queueIds.size + changes.prKeys.size + changes.regenerated.size).toBe(0);
  });
});
