import { entryOf, MAX_INFRASTRUCTURE_RETRIES, infrastructureRetryDelayMs, queueStreamOf } from '@railyard/domain';
import { driverOn } from './testing/driver-on';
import type { QueueDriver } from '@railyard/queue-driver';
import { BED_REPO, localBed, type LocalBed } from './testing/local-bed';

let bed: LocalBed;
let driver: QueueDriver;
let clock: number;

beforeEach(async () => {
  bed = await localBed();
  clock = Date.now();
  ({ driver } = driverOn(bed, () => new Date(clock)));
  // A real failure is final here (no flake re-run), so the infrastructure rule is seen on its own (D175).
  await bed.command({
    type: 'CreateQueue',
    queueId: bed.queueId,
    repo: BED_REPO,
    branch: 'main',
    settings: { concurrency: 2, flakeRetries: 0 },
  });
});
afterEach(() => bed.close());

const eventTypes = async (): Promise<string[]> => (await bed.store.readStream(queueStreamOf(bed.queueId))).map((e) => e.type);
const broken = (code = 'CI_CHECK_NOT_STARTED') => `infrastructure error ${code}: could not start: the sandbox failed`;

describe('QueueDriver and infrastructure errors (real git, real event store)', () => {
  it('when a check cannot start, then the PR is not failed: the check is retried with backoff, then the run is reported stuck, and a later verdict still decides it', async () => {
    await bed.openAndSubmit(1);
    await driver.pass({ verify: true });
    const run = bed.ci.triggered[0];
    if (!run) throw new Error('no run started');

    for (let attempt = 0; attempt < MAX_INFRASTRUCTURE_RETRIES; attempt++) {
      await bed.ci.post(run.sha, 'error', 'tests', broken());
      await driver.pass();
      expect(entryOf(await bed.read(), 1)?.state).toBe('testing');
      expect(bed.ci.retried).toHaveLength(attempt);
      clock += infrastructureRetryDelayMs(attempt);
      await driver.pass();
      expect(bed.ci.retried).toHaveLength(attempt + 1);
    }
    await bed.ci.post(run.sha, 'error', 'tests', broken('CI_RUNNER_ERROR'));
    await driver.pass();
    clock += 3_600_000;
    await driver.pass();
    const types = await eventTypes();
    expect(types.filter((t) => t === 'TestRunInfrastructureRetried')).toHaveLength(MAX_INFRASTRUCTURE_RETRIES);
    expect(types.filter((t) => t === 'TestRunStuck')).toHaveLength(1);
    expect(types).not.toContain('TestRunFailed');
    expect(types).not.toContain('TestRunTimedOut');
    expect(entryOf(await bed.read(), 1)?.state).toBe('testing');

    // An operator mends CI and the check reports a verdict: the stuck run goes on with it.
    await bed.ci.post(run.sha, 'success');
    await driver.pass();
    expect(entryOf(await bed.read(), 1)?.state).toBe('merged');
  });

  it('when a check fails for real after an infrastructure error was retried, then the run fails as usual', async () => {
    await bed.openAndSubmit(1);
    await driver.pass({ verify: true });
    const run = bed.ci.triggered[0];
    if (!run) throw new Error('no run started');
    await bed.ci.post(run.sha, 'error', 'tests', broken('CI_CHECKOUT_LOST'));
    await driver.pass();
    clock += infrastructureRetryDelayMs(0);
    await driver.pass();
    expect(bed.ci.retried).toEqual([{ testRunId: run.testRunId, contexts: ['tests'] }]);
    await bed.ci.post(run.sha, 'failure');
    await driver.pass();
    expect(entryOf(await bed.read(), 1)?.state).toBe('failed');
  });
});
