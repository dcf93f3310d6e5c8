import { createHmac } from 'node:crypto';
import { createWebhookVerifier } from './webhook-verifier';

const SECRET = 'a-webhook-secret-of-some-length';
const BODY = JSON.stringify({ action: 'opened', number: 7, pull_request: { number: 7 } });
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const headers = (overrides: Record<string, string | undefined> = {}) => ({
  'x-github-event': 'pull_request',
  'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  'x-hub-signature-256': sign(BODY),
  ...overrides,
});

describe('webhook verification', () => {
  test('when the signature matches the raw body, then the event comes back typed by its name', async () => {
    const verifier = await createWebhookVerifier(SECRET);
    const result = await verifier.verify(Buffer.from(BODY), headers());
    expect(result).toEqual({
      ok: true,
      known: true,
      event: { id: '72d3162e-cc78-11e3-81ab-4c9367dc0958', name: 'pull_request', payload: JSON.parse(BODY) },
    });
    if (result.ok && result.known && result.event.name === 'pull_request') expect(result.event.payload.number).toBe(7);
  });

  test('when the body was changed or signed with another secret, then it is rejected', async () => {
    const verifier = await createWebhookVerifier(SECRET);
    expect(await verifier.verify(BODY.replace('7', '8'), headers())).toEqual({ ok: false, reason: 'invalid-signature' });
    expect(await verifier.verify(BODY, headers({ 'x-hub-signature-256': sign(BODY, 'another-secret-entirely') }))).toEqual({
      ok: false,
      reason: 'invalid-signature',
    });
    expect(await verifier.verify(BODY, headers({ 'x-hub-signature-256': 'sha256=zz' }))).toEqual({
      ok: false,
      reason: 'invalid-signature',
    });
  });

  test('when the signature or the identifying headers are missing, then it is rejected for that reason', async () => {
    const verifier = await createWebhookVerifier(SECRET);
    expect(await verifier.verify(BODY, headers({ 'x-hub-signature-256': undefined }))).toEqual({ ok: false, reason: 'missing-signature' });
    expect(await verifier.verify(BODY, headers({ 'x-github-delivery': undefined }))).toEqual({ ok: false, reason: 'missing-headers' });
  });

  test('when a correctly signed body is not JSON, then it is rejected as an invalid payload', async () => {
    const verifier = await createWebhookVerifier(SECRET);
    expect(await verifier.verify('not json', headers({ 'x-hub-signature-256': sign('not json') }))).toEqual({
      ok: false,
      reason: 'invalid-payload',
    });
  });

  test('when a correctly signed event is one Octokit does not know, then it is accepted as unknown', async () => {
    const verifier = await createWebhookVerifier(SECRET);
    const result = await verifier.verify(BODY, headers({ 'x-github-event': 'something_new' }));
    expect(result).toMatchObject({ ok: true, known: false, event: { name: 'something_new' } });
  });
});
