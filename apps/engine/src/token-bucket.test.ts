import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('when it was just made, then it gives nothing until time passes', () => {
    const bucket = new TokenBucket(5, () => 0);
    expect(bucket.take()).toBe(false);
  });

  it('when a second passed, then it gives that second’s worth and no more, however long it idled', () => {
    let now = 0;
    const bucket = new TokenBucket(3, () => now);
    now = 60_000;
    const taken = Array.from({ length: 10 }, () => bucket.take()).filter(Boolean).length;
    expect(taken).toBe(3);
    now += 1000 / 3;
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it('when the rate is 0, then it never gives', () => {
    let now = 0;
    const bucket = new TokenBucket(0, () => now);
    now = 10_000;
    expect(bucket.take()).toBe(false);
  });
});
