import { createHmac } from 'node:crypto';
import { REPO, startReceiver, useFakeGithub } from './test-support';

// Webhook deliveries as GitHub makes them: signed, identified, in order, redeliverable.

jest.setTimeout(30_000);

describe('fake GitHub webhooks', () => {
  const ctx = useFakeGithub();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeEach(async () => {
    receiver = await startReceiver();
    ctx.fake.setWebhookUrl(receiver.url);
  });

  afterEach(async () => {
    await ctx.fake.webhooks.settled();
    await receiver.close();
  });

  test('when something happens on a repository, then the App receives it signed with its secret over the exact body', async () => {
    await ctx.fake.commit({ repo: REPO, branch: 'feature', files: { 'f.txt': 'f' } });
    await ctx.fake.openPullRequest({ repo: REPO, head: 'feature' });
    await ctx.fake.webhooks.settled();
    expect(receiver.received.map((r) => r.headers['x-github-event']).sort()).toEqual(['check_suite', 'pull_request', 'push']);
    for (const hook of receiver.received) {
      const expected = `sha256=${createHmac('sha256', ctx.fake.webhookSecret).update(hook.body).digest('hex')}`;
      expect(hook.headers['x-hub-signature-256']).toBe(expected);
      expect(hook.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(hook.headers['content-type']).toBe('application/json');
    }
    const opened = JSON.parse(receiver.received.find((r) => r.headers['x-github-event'] === 'pull_request')?.body ?? '{}');
    expect(opened).toMatchObject({ action: 'opened', number: 1, installation: { id: ctx.inst.id }, repository: { full_name: REPO } });
  });

  test('when a delivery is redelivered, then it arrives again with the same delivery id and body', async () => {
    await ctx.fake.commit({ repo: REPO, branch: 'main', files: { 'x.txt': 'x' } });
    await ctx.fake.webhooks.settled();
    const push = ctx.fake.webhooks.deliveries.find((d) => d.event === 'push');
    ctx.fake.webhooks.redeliver(push?.id ?? '');
    await ctx.fake.webhooks.settled();
    const pushes = receiver.received.filter((r) => r.headers['x-github-event'] === 'push');
    expect(pushes).toHaveLength(2);
    expect(pushes[1]?.headers['x-github-delivery']).toBe(pushes[0]?.headers['x-github-delivery']);
    expect(pushes[1]?.body).toBe(pushes[0]?.body);
    expect(push?.attempts.map((a) => a.redelivery)).toEqual([false, true]);
  });

  test('when the receiver is down, then the failed attempt is recorded and not retried', async () => {
    await receiver.close();
    await ctx.fake.commit({ repo: REPO, branch: 'main', files: { 'x.txt': 'x' } });
    await ctx.fake.webhooks.settled();
    const push = ctx.fake.webhooks.deliveries.find((d) => d.event === 'push');
    expect(push?.attempts).toEqual([expect.objectContaining({ status: null, redelivery: false })]);
    receiver = await startReceiver();
  });

  test('when deliveries are held back, then they queue up and arrive in order once released', async () => {
    ctx.fake.webhooks.pause();
    for (const n of [1, 2, 3]) await ctx.fake.commit({ repo: REPO, branch: 'main', files: { 'n.txt': String(n) } });
    expect(receiver.received).toEqual([]);
    ctx.fake.webhooks.unpause();
    await ctx.fake.webhooks.settled();
    const afters = receiver.received.filter((r) => r.headers['x-github-event'] === 'push').map((r) => JSON.parse(r.body).after);
    expect(afters).toEqual(ctx.fake.webhooks.deliveries.filter((d) => d.event === 'push').map((d) => d.payload.after));
    expect(afters).toHaveLength(3);
  });

  test('when the App is not installed on a repository, then nothing about it is sent', async () => {
    await ctx.fake.createRepo({ repo: 'other/thing' });
    await ctx.fake.commit({ repo: 'other/thing', branch: 'main', files: { 'x.txt': 'x' } });
    await ctx.fake.webhooks.settled();
    expect(receiver.received.map((r) => JSON.parse(r.body).repository?.full_name)).not.toContain('other/thing');
  });

  test('when the installation changes, then installation and installation_repositories events are sent', async () => {
    await ctx.fake.createRepo({ repo: 'acme/gadgets' });
    ctx.fake.removeReposFromInstallation(ctx.inst.id, ['acme/gadgets']);
    ctx.fake.suspend(ctx.inst.id);
    await ctx.fake.webhooks.settled();
    const events = receiver.received.map((r) => `${r.headers['x-github-event']}.${JSON.parse(r.body).action}`);
    expect(events).toEqual(expect.arrayContaining(['installation_repositories.removed', 'installation.suspend']));
  });
});
