import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  NO_FAIL_CHECK,
  TOKENS,
  client,
  configureCi,
  eventually,
  makeWorld,
  openPrWithFile,
  prReaches,
  queueEvents,
  startEmbedded,
  type RunningProcess,
  type World,
} from './support/engine-world';
import { checkGate } from './support/check-gate';

jest.setTimeout(240_000);

/** Opened once the test removed the running check's checkout (support/check-gate.ts). */
const removed = checkGate('the checkout was removed');

/** The checkouts (`<run>/<attempt>/src`) of checks running now under the data dir. */
const checkouts = async (world: World): Promise<string[]> => {
  const workDir = path.join(world.dataDir, 'ci-work');
  const out: string[] = [];
  for (const run of await fs.readdir(workDir).catch(() => [] as string[]))
    for (const entry of await fs.readdir(path.join(workDir, run)).catch(() => [] as string[]))
      if (!entry.endsWith('.owner.json')) out.push(path.join(workDir, run, entry, 'src'));
  return out;
};

const running = async (marker: string): Promise<boolean> => {
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0')[0]?.startsWith(marker)) return true;
  }
  return false;
};

/**
 * Issue 9, item 3: an infrastructure error is never blamed on a PR. Here the checkout of a running
 * check is removed from under it (a disk cleaner, an operator's mistake): the local CI reports
 * CI_CHECKOUT_LOST, and the engine runs the check again instead of failing the PR.
 */
describe('infrastructure errors in the embedded server', () => {
  let world: World;
  let server: RunningProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    await world?.cleanup();
  });

  it('when the checkout of a running check is removed under it, then the check is retried, the PR merges and the error is counted, not blamed', async () => {
    world = await makeWorld();
    const marker = `railyard-infra-${randomBytes(4).toString('hex')}`;
    // Runs until the test removed its checkout (a 3 s sleep could end first on a loaded machine).
    await configureCi(world, { tests: `(exec -a ${marker} sh -c '${removed.wait}'); ${NO_FAIL_CHECK}` });
    server = await startEmbedded(world);
    expect((await client(server.url, TOKENS.admin).createQueue({ concurrency: 1 })).status).toBe(200);
    await openPrWithFile(world, 1, '1\n');
    expect((await client(server.url, TOKENS.write).submit(1)).status).toBe(200);
    await prReaches(server.url, 1, ['testing']);
    // The check's command is running (its process is in /proc), so its checkout is complete.
    await eventually('the check running', async () => ((await running(marker)) ? true : undefined));
    const [checkout] = await eventually('a checkout', async () => {
      const found = await checkouts(world);
      return found.length > 0 ? found : undefined;
    });
    await fs.rm(checkout as string, { recursive: true, force: true });
    removed.open(world);

    expect((await prReaches(server.url, 1, ['merged', 'failed', 'cancelled'], 120_000)).state).toBe('merged');
    const events = await queueEvents(world);
    const lost = events.filter((e) => e.type === 'TestRunStatusReported' && e.data.infrastructureError !== undefined);
    expect(lost.map((e) => (e.data.infrastructureError as { code: string }).code)).toEqual(['CI_CHECKOUT_LOST']);
    expect(events.filter((e) => e.type === 'TestRunInfrastructureRetried')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'PrFailed' || e.type === 'TestRunFailed')).toEqual([]);
    const metrics = await fetch(`${server.url}/v1/getMergeQueueMetrics`, { headers: { 'x-api-token': TOKENS.read } }).then((r) => r.text());
    expect(metrics).toMatch(/railyard_engine_infrastructure_errors_total\{code="CI_CHECKOUT_LOST"\} 1/);
    expect(metrics).toMatch(/railyard_engine_ci_reaps_pending \d+/);
  });
});
