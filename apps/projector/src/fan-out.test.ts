import type { RecordedEvent } from '@railyard/eventstore';
import { fanOut } from './fan-out';
import type { ProjectionTarget } from './run-projector';

/** A target that remembers what it applied and skips what it holds, as every read model does. */
class Target implements ProjectionTarget {
  applied: bigint[] = [];
  constructor(
    private position: bigint | null,
    private readonly failWith?: Error,
  ) {}
  async apply(events: RecordedEvent[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    for (const e of events) {
      if (this.position !== null && e.position <= this.position) continue;
      this.applied.push(e.position);
      this.position = e.position;
    }
  }
  async checkpoint(): Promise<bigint | null> {
    return this.position;
  }
}

const events = (...positions: number[]): RecordedEvent[] =>
  positions.map(
    (p) =>
      ({ position: BigInt(p), streamId: 'queue-q', revision: p, type: 'QueueDeleted', data: {}, metadata: {} }) as unknown as RecordedEvent,
  );

describe('fanOut', () => {
  it('when the targets hold different checkpoints, then the shared one is the lowest and each applies only what it lacks', async () => {
    const ahead = new Target(5n);
    const behind = new Target(2n);
    const both = fanOut([ahead, behind]);
    expect(await both.checkpoint()).toBe(2n);
    await both.apply(events(3, 4, 5, 6));
    expect(ahead.applied).toEqual([6n]);
    expect(behind.applied).toEqual([3n, 4n, 5n, 6n]);
    expect(await both.checkpoint()).toBe(6n);
  });

  it('when one target has no checkpoint, then the shared subscription starts from the beginning', async () => {
    expect(await fanOut([new Target(9n), new Target(null)]).checkpoint()).toBeNull();
  });

  it('when one target fails, then the others still get the batch and the failure reaches the projector', async () => {
    const first = new Target(null);
    const broken = new Target(null, new Error('broken'));
    const last = new Target(null);
    await expect(fanOut([first, broken, last]).apply(events(1, 2))).rejects.toThrow('broken');
    expect(first.applied).toEqual([1n, 2n]);
    expect(last.applied).toEqual([1n, 2n]);
  });
});
