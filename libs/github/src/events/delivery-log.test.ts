import { MemoryEventStore } from '@railyard/eventstore';
import { commandStreamOf, DELIVERY_STREAM_PREFIX, DeliveryLog } from './delivery-log';
import type { WebhookDigest } from './webhook-digest';

const digest: WebhookDigest = {
  event: 'push',
  installationId: 3,
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  hints: [{ kind: 'branch', repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, branch: 'main' }],
};

describe('DeliveryLog', () => {
  let now: number;
  let store: MemoryEventStore;
  const log = () => new DeliveryLog(store, { now: () => new Date(now), takeOverAfterMs: 60_000 });

  beforeEach(() => {
    now = Date.UTC(2026, 10, 25, 2, 0);
    store = new MemoryEventStore();
  });

  it('when a delivery is claimed twice, then only the first claims it, and once handled every later one hears "handled"', async () => {
    expect(await log().claim('d-1', digest)).toEqual({ claimed: true });
    expect(await log().claim('d-1', digest)).toEqual({ claimed: false, state: 'in-progress' });
    await log().finish('d-1', 'hinted', 'handled');
    expect(await log().claim('d-1', digest)).toEqual({ claimed: false, state: 'handled' });
    const recorded = await store.readStream(`${DELIVERY_STREAM_PREFIX}d-1`);
    expect(recorded.map((e) => e.type)).toEqual(['GithubWebhookReceived', 'GithubWebhookHandled']);
    expect(recorded[0]?.data).toEqual({ deliveryId: 'd-1', event: 'push', installationId: 3, hints: digest.hints });
  });

  it('when the handling failed, then the next delivery of the same id claims it again', async () => {
    await log().claim('d-2', digest);
    await log().finish('d-2', 'failed', 'failed');
    expect(await log().claim('d-2', digest)).toEqual({ claimed: true });
  });

  it('when a claim was never finished (its handler died), then a redelivery takes it over after a minute, not before', async () => {
    await log().claim('d-3', digest);
    now += 59_000;
    expect(await log().claim('d-3', digest)).toEqual({ claimed: false, state: 'in-progress' });
    now += 2_000;
    expect(await log().claim('d-3', digest)).toEqual({ claimed: true });
  });

  it('when a command comes again under another delivery id, then only the first claims it, until it is handled or failed', async () => {
    const key = 'github.com:issue_comment:11:created';
    expect(await log().claimCommand(key, 'd-4')).toEqual({ claimed: true });
    expect(await log().claimCommand(key, 'd-5')).toEqual({ claimed: false, state: 'in-progress' });
    await log().finishCommand(key, 'd-4', 'failed', 'failed');
    expect(await log().claimCommand(key, 'd-5')).toEqual({ claimed: true });
    await log().finishCommand(key, 'd-5', 'merge by alice', 'handled');
    expect(await log().claimCommand(key, 'd-6')).toEqual({ claimed: false, state: 'handled' });
    const recorded = await store.readStream(commandStreamOf(key));
    expect(recorded.map((e) => e.type)).toEqual([
      'GithubCommandReceived',
      'GithubCommandFailed',
      'GithubCommandReceived',
      'GithubCommandHandled',
    ]);
  });
});
