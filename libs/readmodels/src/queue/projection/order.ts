import { isTerminal } from '@railyard/domain';
import type { PrView } from '../port';
import { isCurrent, type PrDoc, type QueueDoc } from './docs';

/** Listed by listActivePrs: a PR of the queue's current generation that has not left the queue. */
export const isActive = (queue: QueueDoc | null, pr: PrDoc | null): pr is PrDoc => isCurrent(queue, pr) && !isTerminal(pr.view.state);

/** Queue order, the same as the write side's byQueueOrder: priority value first, then submission. */
type Ordered = Pick<PrView, 'priorityValue' | 'seq'>;
export const byQueueOrder = (a: Ordered, b: Ordered): number => a.priorityValue - b.priorityValue || a.seq - b.seq;

// Priority values stay below 2^8 and sequence numbers below 2^32, so the product stays well inside a
// double's exact integers and a sorted set ordered by this score is in queue order.
const SEQ_SPAN = 2 ** 32;
export const queueOrderScore = (pr: PrView): number => pr.priorityValue * SEQ_SPAN + pr.seq;
