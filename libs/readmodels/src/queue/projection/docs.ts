import type { PrView, QueueView } from '../port';

/**
 * What the read side stores per queue. The document outlives a deletion (view null) so that the
 * generation keeps counting: PR documents carry the generation they were written in, and a PR of an
 * earlier generation is never shown for a re-created queue.
 */
export interface QueueDoc {
  view: QueueView | null;
  generation: number;
  /** Next submission sequence number, handed to the next PrSubmitted of this generation. */
  nextSeq: number;
  /** Position of the last event of the queue's stream folded into this document (decimal string, JSON-safe). */
  position: string;
}

export interface PrDoc {
  view: PrView;
  generation: number;
  /** Position of the last event folded into this document (decimal string). */
  position: string;
}

export interface ProjectionDocs {
  queue: QueueDoc | null;
  pr: PrDoc | null;
}

export const positionOf = (doc: { position: string } | null): bigint => (doc ? BigInt(doc.position) : -1n);

/** The PR document belongs to the queue as it is now: same generation and the queue not deleted. */
export const isCurrent = (queue: QueueDoc | null, pr: PrDoc | null): pr is PrDoc =>
  !!queue && !!queue.view && !!pr && pr.generation === queue.generation;
