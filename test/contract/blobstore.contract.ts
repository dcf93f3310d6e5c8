import { createHash, randomBytes } from 'node:crypto';
import type { BlobStore } from '../../libs/eventstore/src';
import { openPerTest, type Opened } from './support/open-per-test';

export type BlobStoreUnderTest = Opened<BlobStore>;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export function blobStoreContract(name: string, makeStore: () => Promise<BlobStoreUnderTest>): void {
  describe(`${name} blob store contract`, () => {
    let store: BlobStore;
    openPerTest(makeStore, (opened) => (store = opened));

    it('when bytes are put, then the digest is their SHA-256 hex and get returns the same bytes', async () => {
      const bytes = Buffer.from('impacted: //a:b, //c:d — ☃');
      const digest = await store.put(bytes);

      expect(digest).toBe(sha256(bytes));
      expect(await store.get(digest)).toEqual(bytes);
    });

    it('when arbitrary binary bytes are put, then they come back byte for byte', async () => {
      const bytes = Buffer.concat([Buffer.from([0, 255, 0, 10, 13]), randomBytes(4096)]);

      expect(await store.get(await store.put(bytes))).toEqual(bytes);
    });

    it('when a large blob is put, then it comes back whole', async () => {
      const bytes = randomBytes(5 * 1024 * 1024);

      const read = await store.get(await store.put(bytes));
      expect(read?.equals(bytes)).toBe(true);
    });

    it('when the same bytes are put twice, then both puts return the same digest', async () => {
      const bytes = randomBytes(64);

      expect(await store.put(bytes)).toBe(await store.put(Buffer.from(bytes)));
      expect(await store.get(sha256(bytes))).toEqual(bytes);
    });

    it('when the same bytes are put concurrently, then every put succeeds with the one digest', async () => {
      const bytes = randomBytes(256 * 1024);

      const digests = await Promise.all(Array.from({ length: 5 }, () => store.put(bytes)));
      expect(new Set(digests)).toEqual(new Set([sha256(bytes)]));
      expect((await store.get(sha256(bytes)))?.equals(bytes)).toBe(true);
    });

    it('when empty bytes are put, then they are stored under the digest of the empty string', async () => {
      const digest = await store.put(Buffer.alloc(0));

      expect(digest).toBe(sha256(Buffer.alloc(0)));
      expect(await store.get(digest)).toEqual(Buffer.alloc(0));
    });

    it('when a digest was never stored, then get returns null', async () => {
      await expect(store.get(sha256(randomBytes(16)))).resolves.toBeNull();
    });

    it('when get is given something that is not a digest, then it returns null', async () => {
      for (const bad of ['', '../../etc/passwd', 'ab', sha256(Buffer.from('x')).toUpperCase(), `${sha256(Buffer.from('x'))}0`]) {
        await expect(store.get(bad)).resolves.toBeNull();
      }
    });

    it('when the caller changes its buffer after put, then the stored blob is unchanged', async () => {
      const bytes = Buffer.from('original');
      const digest = await store.put(bytes);
      bytes.write('modified');

      expect((await store.get(digest))?.toString()).toBe('original');
    });

    describe('named blobs', () => {
      const name = 'ci-log/run-1/unit%20tests.log';

      it('when bytes are put under a name, then getNamed returns them byte for byte', async () => {
        const bytes = Buffer.concat([Buffer.from('# railyard ci\n'), randomBytes(2048)]);
        await store.putNamed(name, bytes);

        expect(await store.getNamed(name)).toEqual(bytes);
      });

      it('when a name is put again, then the later bytes replace the earlier ones', async () => {
        await store.putNamed(name, Buffer.from('first, longer version'));
        await store.putNamed(name, Buffer.from('second'));

        expect((await store.getNamed(name))?.toString()).toBe('second');
      });

      it('when a name was never stored, then getNamed returns null, also for a name under a stored one', async () => {
        await store.putNamed('ci-log/run-1/a.log', Buffer.from('a'));

        await expect(store.getNamed('ci-log/run-2/a.log')).resolves.toBeNull();
        await expect(store.getNamed('ci-log/run-1/a.log/b')).resolves.toBeNull();
      });

      it('when a named blob and a content blob hold the same bytes, then each is found by its own key only', async () => {
        const bytes = Buffer.from('same bytes');
        await store.putNamed(name, bytes);

        await expect(store.get(sha256(bytes))).resolves.toBeNull();
        const digest = await store.put(bytes);
        await expect(store.getNamed(digest)).resolves.toBeNull();
      });

      it('when a name could leave the store’s space, then putNamed refuses it and getNamed returns null', async () => {
        for (const bad of ['', '../x', 'a/../b', '/abs', 'a//b', 'a/.hidden', 'sp ace', 'a\nb', 'x'.repeat(513)]) {
          await expect(store.putNamed(bad, Buffer.from('x'))).rejects.toThrow(RangeError);
          await expect(store.getNamed(bad)).resolves.toBeNull();
        }
      });

      it('when a large blob is put under a name, then it comes back whole', async () => {
        const bytes = randomBytes(4 * 1024 * 1024);
        await store.putNamed(name, bytes);

        expect((await store.getNamed(name))?.equals(bytes)).toBe(true);
      });

      describe('expiring named blobs', () => {
        const note = Buffer.from('# expired\n');
        const later = (): Date => new Date(Date.now() + 60_000);

        it('when a space is expired before a later instant, then its blobs read as the note and the bytes freed are counted', async () => {
          await store.putNamed('ci-log/run-1/a.log', Buffer.from('a'.repeat(100)));
          await store.putNamed('ci-log/run-2/b.log', Buffer.from('b'.repeat(50)));

          const expired = await store.expireNamed('ci-log', later(), note);

          expect(expired).toEqual({ blobs: 2, bytes: 150 - 2 * note.length });
          expect(await store.getNamed('ci-log/run-1/a.log')).toEqual(note);
          expect(await store.getNamed('ci-log/run-2/b.log')).toEqual(note);
        });

        it('when blobs were stored after the instant, then they keep their bytes', async () => {
          const before = new Date(Date.now() - 60_000);
          await store.putNamed('ci-log/run-1/a.log', Buffer.from('kept'));

          expect(await store.expireNamed('ci-log', before, note)).toEqual({ blobs: 0, bytes: 0 });
          expect((await store.getNamed('ci-log/run-1/a.log'))?.toString()).toBe('kept');
        });

        it('when another space holds old blobs, then expiring one space leaves the other alone', async () => {
          await store.putNamed('ci-log/run-1/a.log', Buffer.from('log'));
          await store.putNamed('ci-logs/run-1/a.log', Buffer.from('other'));
          await store.putNamed('dashboard-sessions/revoked/x', Buffer.from('session'));

          await store.expireNamed('ci-log', later(), note);

          expect((await store.getNamed('ci-logs/run-1/a.log'))?.toString()).toBe('other');
          expect((await store.getNamed('dashboard-sessions/revoked/x'))?.toString()).toBe('session');
        });

        it('when a space is expired twice, then the second pass replaces nothing', async () => {
          await store.putNamed('ci-log/run-1/a.log', Buffer.from('log'));
          await store.expireNamed('ci-log', later(), note);

          expect(await store.expireNamed('ci-log', later(), note)).toEqual({ blobs: 0, bytes: 0 });
          expect(await store.getNamed('ci-log/run-1/a.log')).toEqual(note);
        });

        it('when the space is not one name segment, then expireNamed refuses it', async () => {
          for (const bad of ['', 'ci-log/run-1', '../x', '.hidden'])
            await expect(store.expireNamed(bad, later(), note)).rejects.toThrow(RangeError);
        });
      });
    });
  });
}
