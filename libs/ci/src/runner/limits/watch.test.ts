import type { FileHandle } from 'node:fs/promises';
import { DEFAULT_CHECK_LIMITS, type LimitName } from './limits';
import type { Usage } from './proc-usage';
import { LimitPoller, watchLimits } from './watch';

const quietLog = { stat: async () => ({ size: 0 }) } as unknown as FileHandle;

const counted = (usage: Record<number, Usage>) => {
  const scans: number[][] = [];
  const scan = async (uids: ReadonlySet<number>) => {
    scans.push([...uids].sort());
    return new Map(Object.entries(usage).map(([uid, u]) => [Number(uid), u] as const));
  };
  return { scans, scan };
};

describe('watching the limits of several checks', () => {
  it('when three checks are watched, then one pass over /proc serves the two counted by uid', async () => {
    const { scans, scan } = counted({ 2001: { tasks: 3, memoryBytes: 0 }, 2002: { tasks: 2000, memoryBytes: 0 } });
    const poller = new LimitPoller(scan, 60_000);
    const hits: Record<string, LimitName> = {};
    const watch = (name: string, uid?: number) =>
      watchLimits(
        { limits: DEFAULT_CHECK_LIMITS, log: quietLog, ...(uid === undefined ? {} : { uid }), onHit: (l) => (hits[name] = l) },
        poller,
      );
    const watches = [watch('a', 2001), watch('b', 2002), watch('c')];
    await poller.tick();
    expect(scans).toEqual([[2001, 2002]]);
    expect(hits).toEqual({ b: 'processes' });
    for (const w of watches) await w.stop();
  });

  it('when a uid has no process left, then its check counts nothing', async () => {
    const { scan } = counted({});
    const poller = new LimitPoller(scan, 60_000);
    const hits: LimitName[] = [];
    const w = watchLimits(
      { limits: { ...DEFAULT_CHECK_LIMITS, processes: 0 }, log: quietLog, uid: 2003, onHit: (l) => hits.push(l) },
      poller,
    );
    await poller.tick();
    expect(hits).toEqual(['processes']);
    await w.stop();
  });

  it('when a check stops, then its last look leaves its processes out and it is no longer scanned', async () => {
    const { scans, scan } = counted({ 2004: { tasks: 2000, memoryBytes: 0 } });
    const poller = new LimitPoller(scan, 60_000);
    const hits: LimitName[] = [];
    const w = watchLimits({ limits: DEFAULT_CHECK_LIMITS, log: quietLog, uid: 2004, onHit: (l) => hits.push(l) }, poller);
    expect(await w.stop()).toBeNull();
    await poller.tick();
    expect(scans).toEqual([]);
    expect(hits).toEqual([]);
  });

  it('when a look is still under way, then the next tick joins it instead of scanning again', async () => {
    const { scans, scan } = counted({});
    const poller = new LimitPoller(scan, 60_000);
    const w = watchLimits({ limits: DEFAULT_CHECK_LIMITS, log: quietLog, uid: 2005, onHit: () => undefined }, poller);
    await Promise.all([poller.tick(), poller.tick()]);
    expect(scans).toHaveLength(1);
    await w.stop();
  });
});
