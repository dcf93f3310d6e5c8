import fc from 'fast-check';
import { parseQueueId, QUEUE_STREAM_PREFIX, queueIdOf, queueStreamOf, repoSlug, type RepoRef } from './ids';

const repo = (host: string, owner: string, name: string): RepoRef => ({ host, owner, name });

/** Strings rich in the characters that could break an encoding: separators, escapes, and any printable text. */
const tricky = (maxLength = 12) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('/', '@', '~', '%', '%7E', '%2F', '7', 'E', '-', '.', ' '),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
    maxLength,
  });
const queueKey = fc.record({ host: tricky(), owner: tricky(), name: tricky(), branch: tricky() });
/** A tiny alphabet, so that two independently drawn keys often collide when naively joined. */
const tiny = fc.string({ unit: fc.constantFrom('~', '/', '@', '%', 'a'), maxLength: 3 });
const tinyKey = fc.record({ host: tiny, owner: tiny, name: tiny, branch: tiny });

describe('queueIdOf', () => {
  it('when the parts are plain, then the id is readable', () => {
    expect(queueIdOf(repo('github.com', 'acme', 'rocket'), 'main')).toBe('github.com~acme~rocket~main');
  });

  it('when the branch holds /, @, ~ or %, then they are escaped and ~ appears only as the separator', () => {
    const id = queueIdOf(repo('github.com', 'acme', 'rocket'), 'release/v1@2~rc%');
    expect(id).toBe('github.com~acme~rocket~release%2Fv1%402%7Erc%25');
    expect(id.split('~')).toHaveLength(4);
  });

  it('when a ~ moves from one part to the next, then the ids differ', () => {
    expect(queueIdOf(repo('h', 'a~b', 'c'), 'x')).not.toBe(queueIdOf(repo('h', 'a', 'b~c'), 'x'));
    expect(queueIdOf(repo('h', 'o', 'n'), 'a~b')).not.toBe(queueIdOf(repo('h', 'o', 'n~a'), 'b'));
  });

  it('when the branch already looks escaped, then it is not confused with the raw character', () => {
    expect(queueIdOf(repo('h', 'o', 'n'), '%7E')).not.toBe(queueIdOf(repo('h', 'o', 'n'), '~'));
    expect(queueIdOf(repo('h', 'o', 'n'), '%2F')).not.toBe(queueIdOf(repo('h', 'o', 'n'), '/'));
  });

  it('when any two keys give the same id, then they are the same key (injective)', () => {
    fc.assert(
      fc.property(tinyKey, tinyKey, (a, b) => {
        const same = a.host === b.host && a.owner === b.owner && a.name === b.name && a.branch === b.branch;
        return (queueIdOf(a, a.branch) === queueIdOf(b, b.branch)) === same;
      }),
      { numRuns: 2000 },
    );
  });

  it('when any key is turned into an id and parsed back, then the key comes back unchanged', () => {
    fc.assert(
      fc.property(queueKey, ({ host, owner, name, branch }) => {
        expect(parseQueueId(queueIdOf({ host, owner, name }, branch))).toStrictEqual({ repo: { host, owner, name }, branch });
      }),
      { numRuns: 500 },
    );
  });

  it('when any key is turned into an id, then the id holds exactly three separators', () => {
    fc.assert(
      fc.property(queueKey, (k) => queueIdOf(k, k.branch).split('~').length === 4),
      { numRuns: 500 },
    );
  });
});

describe('parseQueueId', () => {
  it('when the id has the wrong number of parts, then it throws', () => {
    expect(() => parseQueueId('github.com~acme~rocket')).toThrow('not a queue id');
    expect(() => parseQueueId('a~b~c~d~e')).toThrow('not a queue id');
  });
});

describe('stream names and slugs', () => {
  it('when a stream name is made, then it is the queue id behind the prefix', () => {
    expect(queueStreamOf('github.com~acme~rocket~main')).toBe(`${QUEUE_STREAM_PREFIX}github.com~acme~rocket~main`);
    expect(QUEUE_STREAM_PREFIX).toBe('queue-');
  });

  it('when a repo slug is made, then it is owner/name', () => {
    expect(repoSlug(repo('github.com', 'acme', 'rocket'))).toBe('acme/rocket');
  });
});
