import {
  evolve,
  initialQueueState,
  knownEntries,
  parseQueueId,
  QUEUE_STREAM_PREFIX,
  type QueueEvent,
  type QueueState,
} from '@railyard/domain';
import { MemoryEventStore } from '@railyard/eventstore';
import { MemoryReadModelStore } from '@railyard/readmodels';
import { workload } from './workload';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('rebuild workload', () => {
  it('when asked for a number of events, then it produces exactly that many, all with UUID ids, in one queue stream per append', () => {
    const appends = [...workload({ events: 5_003, seed: 7 })];
    const events = appends.flatMap((a) => a.events);

    expect(events).toHaveLength(5_003);
    expect(events.every((e) => UUID.test(e.eventId))).toBe(true);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    expect(appends.every((a) => a.streamId.startsWith(QUEUE_STREAM_PREFIX) && a.events.length > 0)).toBe(true);
  });

  it('when the same seed is used twice, then the same log comes out', () => {
    const first = [...workload({ events: 500, seed: 3 })];
    const second = [...workload({ events: 500, seed: 3 })];

    expect(second).toEqual(first);
  });

  it('when the log is appended with its expected revisions, then the store accepts every append', async () => {
    const store = new MemoryEventStore();

    for (const a of workload({ events: 3_000, seed: 11 })) await store.append(a.streamId, a.events, a.expected);

    expect(await store.headPosition()).toBe(3_000n);
  });

  it('when the log is folded by the domain and projected by the read models, then both agree on every PR', async () => {
    const store = new MemoryEventStore();
    const states = new Map<string, QueueState>();
    for (const a of workload({ events: 10_000, seed: 5, queues: 4 })) {
      await store.append(a.streamId, a.events, a.expected);
      let state = states.get(a.streamId) ?? initialQueueState();
      for (const e of a.events) state = evolve(state, { type: e.type, data: e.data } as QueueEvent);
      states.set(a.streamId, state);
    }
    const readModels = new MemoryReadModelStore();
    await readModels.apply(await store.readAll(null, 10_000));

    const kinds = new Set((await store.readAll(null, 10_000)).map((e) => e.type));
    expect(kinds).toEqual(
      new Set([
        'QueueCreated',
        'PrSubmitted',
        'PrPriorityChanged',
        'PrReadinessChanged',
        'PrCancelled',
        'TestRunStarted',
        'PrTestingStarted',
        'TestRunStatusReported',
        'TestRunSucceeded',
        'PrTestsPassed',
        'PrMerged',
        'TestRunFailed',
        'PrFailed',
        'TestRunTimedOut',
        'TestRunCancelled',
        'TestsRestarted',
        'QueueStateChanged',
        'QueueConfigUpdated',
      ]),
    );
    for (const [streamId, state] of states) {
      const queueId = streamId.slice(QUEUE_STREAM_PREFIX.length);
      expect(parseQueueId(queueId).branch).toBe(state.branch);
      expect((await readModels.getQueue(queueId))?.state).toBe(state.runState);
      for (const entry of knownEntries(state)) {
        const view = await readModels.getPr(queueId, entry.prNumber);
        expect({ pr: entry.prNumber, state: view?.state, priority: view?.priorityValue }).toEqual({
          pr: entry.prNumber,
          state: entry.state,
          priority: entry.priorityValue,
        });
      }
    }
  });
});
