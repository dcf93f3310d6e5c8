import { randomBytes } from 'node:crypto';
import { SecretBox, SecretKeyMissing } from './secret-box';

const key = (id: string) => ({ id, key: randomBytes(32) });
const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0cw==';

describe('SecretBox', () => {
  it('when a key is set, then a sealed secret holds no trace of it and opens as it was', () => {
    const box = new SecretBox([key('k1')]);
    const sealed = box.seal(SECRET, 'ep1');
    expect(sealed).toMatch(/^sealed:v1:k1:/);
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    expect(box.open(sealed, 'ep1')).toBe(SECRET);
    expect(box.seal(SECRET, 'ep1')).not.toBe(sealed);
  });

  it('when a sealed secret is read as another endpoint’s, then it does not open', () => {
    const box = new SecretBox([key('k1')]);
    expect(() => box.open(box.seal(SECRET, 'ep1'), 'ep2')).toThrow();
  });

  it('when the key that sealed is not listed, then opening names the key and the endpoint', () => {
    const sealed = new SecretBox([key('old')]).seal(SECRET, 'ep1');
    expect(() => new SecretBox([key('new')]).open(sealed, 'ep1')).toThrow(SecretKeyMissing);
    expect(() => new SecretBox([key('new')]).open(sealed, 'ep1')).toThrow(/endpoint ep1 .*key "old"/);
  });

  it('when a new key goes first, then what the old one sealed still opens and counts as stale', () => {
    const old = key('old');
    const sealed = new SecretBox([old]).seal(SECRET, 'ep1');
    const rotated = new SecretBox([key('new'), old]);
    expect(rotated.open(sealed, 'ep1')).toBe(SECRET);
    expect(rotated.stale(sealed)).toBe(true);
    expect(rotated.stale(rotated.seal(SECRET, 'ep1'))).toBe(false);
  });

  it('when no key is set, then secrets stay in clear, and a clear secret opens as itself under a key', () => {
    expect(new SecretBox().seal(SECRET, 'ep1')).toBe(SECRET);
    expect(new SecretBox().stale(SECRET)).toBe(false);
    const box = new SecretBox([key('k1')]);
    expect(box.open(SECRET, 'ep1')).toBe(SECRET);
    expect(box.stale(SECRET)).toBe(true);
  });

  it('when a key is not 32 bytes, then the box refuses it', () => {
    expect(() => new SecretBox([{ id: 'short', key: randomBytes(16) }])).toThrow(/32 bytes/);
  });
});
