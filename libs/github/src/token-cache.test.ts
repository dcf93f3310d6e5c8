import { InstallationTokenCache } from './token-cache';

const entry = (expiresAt: string) => `ghs_token|2026-01-01T00:00:00Z|${expiresAt}|all|contents!,metadata|`;

describe('InstallationTokenCache', () => {
  test('when a token is well within its life, then it is served from the cache', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const cache = new InstallationTokenCache(5 * 60 * 1000, () => now);
    cache.set('42', entry('2026-01-01T01:00:00Z'));
    now += 54 * 60 * 1000;
    expect(cache.get('42')).toBe(entry('2026-01-01T01:00:00Z'));
  });

  test('when a token is within the margin of its expiry, then it is no longer served', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const cache = new InstallationTokenCache(5 * 60 * 1000, () => now);
    cache.set('42', entry('2026-01-01T01:00:00Z'));
    now += 55 * 60 * 1000;
    expect(cache.get('42')).toBeUndefined();
  });

  test('when the expiry cannot be read, then nothing is cached', () => {
    const cache = new InstallationTokenCache(0);
    cache.set('42', 'ghs_token|2026-01-01T00:00:00Z|not a date');
    expect(cache.get('42')).toBeUndefined();
  });
});
