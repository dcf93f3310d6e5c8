import { LruCache } from './lru';

describe('LruCache', () => {
  it('when it is full, then the least recently used entry goes first', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);

    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('when the capacity is not a positive integer, then construction fails', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
