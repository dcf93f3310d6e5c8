import { createLogger } from '@railyard/observability';
import { startEngine, type EngineHandle } from './engine';
import { BED_REPO, localBed, type LocalBed } from './testing/local-bed';

/**
 * An idle queue (no PR, nothing planned) is not passed over on every tick: only an event or the verify
 * timer wakes it (issue 29: 5,000 empty queues cost 0.25 CPU-s a second, a state read and a plan each).
 */

let bed: LocalBed;
let engine: EngineHandle | undefined;

beforeEach(async () => {
  bed = await localBed();
  await bed.command({ type: 'CreateQueue', queueId: bed.queueId, repo: BED_REPO, branch: 'main' });
});
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  await bed.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const passes = (): number => engine?.stats()[bed.queueId]?.passes ?? 0;
/** Passes over the queue while `ms` of 20 ms ticks go by, once the engine has nothing due. */
const passesDuring = async (ms: number): Promise<number> => {
  await engine?.idle();
  const before = passes();
  await sleep(ms);
  return passes() - before;
};

describe('engine ticks', () => {
  it('when a queue holds no PR, then ticks leave it alone; a submission wakes it, and a queue holding a PR is passed on each tick', async () => {
    engine = startEngine({ eventStore: bed.store, host: bed.host, ci: bed.ci, logger: createLogger('idle-ticks', 'error'), tickMs: 20 });
    for (let i = 0; i < 100 && passes() === 0; i++) await sleep(20);
    expect(passes()).toBeGreaterThan(0);
    expect(await passesDuring(400)).toBe(0);

    await bed.openAndSubmit(1);
    for (let i = 0; i < 100 && passes() < 2; i++) await sleep(20);
    // Its check never reports here: the PR stays testing, the queue is not idle, and each tick passes over it.
    expect(await passesDuring(400)).toBeGreaterThan(3);
  });
});
