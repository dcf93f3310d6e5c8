import { decide, queueIdOf, queueStreamOf } from '@railyard/domain';
import { MemoryEventStore } from '@railyard/eventstore';
import { queueCommandHandler } from './queue-command-handler';

describe('queueCommandHandler', () => {
  it('when 2,000 idle queues are read in turn, as the engine ticks them, then none of their streams is folded again (D321)', async () => {
    const store = new MemoryEventStore();
    const writer = queueCommandHandler(store, decide);
    const meta = { actor: 'test', correlationId: 'c' };
    const streams: string[] = [];
    for (let n = 0; n < 2_000; n++) {
      const repo = { host: 'git.test', owner: 'acme', name: `repo${n}` };
      await writer.execute(
        { repo, branch: 'main' },
        { type: 'CreateQueue', queueId: 'ignored', repo, branch: 'main', requiredStatuses: [] },
        meta,
      );
      streams.push(queueStreamOf(queueIdOf(repo, 'main')));
    }
    // Every event a stream read hands back after the queues exist: a cached state reads only its empty tail.
    const reads = jest.spyOn(store, 'readStream');
    for (const stream of streams) expect((await writer.read(stream)).queueId).toBeDefined();
    const folded = await Promise.all(reads.mock.results.map(async (r) => ((await r.value) as unknown[]).length));
    expect(folded.reduce((a, b) => a + b, 0)).toBe(0);
  });
});
