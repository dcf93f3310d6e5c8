import type { KurrentDBClient, StreamMetadata } from '@kurrent/kurrentdb-client';
import type { StreamMaxAge } from '../retention-port';

/** What the rule needs of the client: the one call, so a test can record it. */
export type StreamMetadataClient = Pick<KurrentDBClient, 'setStreamMetadata'>;

/** The metadata a stream is given when it is created under `rule`, or null when the rule does not cover it. */
export const maxAgeMetadataOf = (streamId: string, rule: StreamMaxAge | null): StreamMetadata | null =>
  rule && rule.seconds > 0 && streamId.startsWith(rule.prefix) ? { maxAge: rule.seconds } : null;

/**
 * After an append of `count` events whose last is at `nextRevision`: when that append created the
 * stream (its first event is revision 0) and the rule covers it, sets the stream's `$maxAge`, so the
 * server hides its events once they are that old and a scavenge removes them (D314). Appends with
 * 'any' never conflict, so exactly one append of a stream is its first. True when it set it.
 */
export const expireIfCreated = async (
  client: StreamMetadataClient,
  rule: StreamMaxAge | null,
  streamId: string,
  nextRevision: number,
  count: number,
): Promise<boolean> => {
  if (nextRevision - count + 1 !== 0) return false;
  const metadata = maxAgeMetadataOf(streamId, rule);
  if (!metadata) return false;
  await client.setStreamMetadata(streamId, metadata);
  return true;
};
