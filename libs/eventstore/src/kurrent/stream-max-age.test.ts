import type { StreamMetadata } from '@kurrent/kurrentdb-client';
import { expireIfCreated, maxAgeMetadataOf, type StreamMetadataClient } from './stream-max-age';

const RULE = { prefix: 'commit-status-', seconds: 30 * 24 * 60 * 60 };
const STATUS = 'commit-status-github.com/acme/rails@abc';

/** Records every setStreamMetadata call the rule makes, answering as the server would. */
const recordingClient = () => {
  const calls: { streamName: string; metadata: StreamMetadata }[] = [];
  const client = {
    setStreamMetadata: async (streamName: string, metadata: StreamMetadata) => {
      calls.push({ streamName, metadata });
      return { success: true, nextExpectedRevision: 0n, position: undefined };
    },
  } as unknown as StreamMetadataClient;
  return { client, calls };
};

describe('KurrentDB stream $maxAge (D314)', () => {
  it('when an append creates a commit-status stream, then its metadata gets maxAge in seconds', async () => {
    const { client, calls } = recordingClient();
    expect(await expireIfCreated(client, RULE, STATUS, 0, 1)).toBe(true);
    expect(await expireIfCreated(client, RULE, `${STATUS}2`, 2, 3)).toBe(true);
    expect(calls).toEqual([
      { streamName: STATUS, metadata: { maxAge: 2_592_000 } },
      { streamName: `${STATUS}2`, metadata: { maxAge: 2_592_000 } },
    ]);
  });

  it('when an append adds to a stream that already had events, then no metadata is written', async () => {
    const { client, calls } = recordingClient();
    expect(await expireIfCreated(client, RULE, STATUS, 1, 1)).toBe(false);
    expect(await expireIfCreated(client, RULE, STATUS, 5, 2)).toBe(false);
    expect(calls).toEqual([]);
  });

  it('when the stream is not a commit-status stream or retention keeps everything, then no metadata is written', async () => {
    const { client, calls } = recordingClient();
    expect(await expireIfCreated(client, RULE, 'queue-github.com/acme/rails:main', 0, 1)).toBe(false);
    expect(await expireIfCreated(client, null, STATUS, 0, 1)).toBe(false);
    expect(await expireIfCreated(client, { ...RULE, seconds: 0 }, STATUS, 0, 1)).toBe(false);
    expect(calls).toEqual([]);
    expect(maxAgeMetadataOf(STATUS, RULE)).toEqual({ maxAge: 2_592_000 });
  });
});
