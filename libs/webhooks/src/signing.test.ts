import { Webhook } from 'standardwebhooks';
import { messageIdOf, newSigningSecret, signedHeaders } from './signing';

describe('signing', () => {
  it('when a body is signed, then the standardwebhooks package verifies it and refuses a changed body', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ type: 'pull_request.merged', pr_number: 1 });
    const headers = signedHeaders(secret, 'msg_1', Math.floor(Date.now() / 1000), body);
    const wh = new Webhook(secret);
    expect(wh.verify(body, headers)).toEqual({ type: 'pull_request.merged', pr_number: 1 });
    expect(() => wh.verify(body.replace('1', '2'), headers)).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  it('when the same event is addressed twice to one endpoint, then the id is the same, and it differs per endpoint and index', () => {
    expect(messageIdOf('ep1', 'ev1', 0)).toBe(messageIdOf('ep1', 'ev1', 0));
    expect(messageIdOf('ep1', 'ev1', 0)).not.toBe(messageIdOf('ep2', 'ev1', 0));
    expect(messageIdOf('ep1', 'ev1', 0)).not.toBe(messageIdOf('ep1', 'ev1', 1));
    expect(newSigningSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});
