import { OverlapIndex, isTerminal, targetsFor, type QueueState, type TargetOverlaps } from '@railyard/domain';
import type { BlobStore } from '@railyard/eventstore';

/**
 * The overlap facts parallel mode plans with, per queue: an inverted index over the impacted-target
 * lists of the PRs in the queue, filled from the blob store by digest. A list is read and indexed
 * once, when a PR first needs it, and dropped when no PR in the queue uses it any more, so memory
 * follows the queue, not its history. Queues in single mode keep nothing.
 */
export class TargetOverlapsCache {
  private readonly indexes = new Map<string, OverlapIndex>();
  /** Digests whose blob was missing: asked again only after this many rounds, so a gap does not cost a read per round. */
  private readonly missing = new Map<string, number>();

  constructor(private readonly blobs: BlobStore | undefined) {}

  async forQueue(s: QueueState): Promise<TargetOverlaps | undefined> {
    if (s.settings.mode !== 'parallel' || !this.blobs) {
      this.indexes.delete(s.queueId);
      return undefined;
    }
    let index = this.indexes.get(s.queueId);
    if (!index) {
      index = new OverlapIndex();
      this.indexes.set(s.queueId, index);
    }
    const needed = new Set<string>();
    for (const e of s.entries.values()) {
      if (isTerminal(e.state)) continue;
      const ref = targetsFor(s, e.prNumber, e.headSha);
      if (ref && !ref.all && ref.count > 0) needed.add(ref.digest);
    }
    for (const digest of needed) if (!index.has(digest)) await this.load(index, digest);
    for (const digest of [...index.digests()]) if (!needed.has(digest)) index.remove(digest);
    return index;
  }

  private async load(index: OverlapIndex, digest: string): Promise<void> {
    const skip = this.missing.get(digest) ?? 0;
    if (skip > 0) {
      this.missing.set(digest, skip - 1);
      return;
    }
    const bytes = await (this.blobs as BlobStore).get(digest);
    if (!bytes) {
      // The planner treats a PR whose list it does not know as impacting everything: safe, only slower.
      this.missing.set(digest, 50);
      return;
    }
    this.missing.delete(digest);
    index.add(digest, bytes.toString('utf8').split('\n'));
  }
}
