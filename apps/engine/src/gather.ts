/** Milliseconds of gathering per entry of the queue's state, and the longest gathering (docs/decisions.md D29). */
export const GATHER_MS_PER_ENTRY = 0.2;
export const MAX_GATHER_MS = 500;

/**
 * How long a pass waits after an API command: `gatherMs`, plus a share for each entry of the queue,
 * since a planning round walks them all. A burst of submissions into a queue of thousands then costs
 * a pass every few tenths of a second, not one per command, and the engine's work per command stays
 * flat as the queue grows (docs/decisions.md D29).
 */
export const gatherWindowMs = (gatherMs: number, entries: number): number =>
  Math.min(MAX_GATHER_MS, gatherMs + entries * GATHER_MS_PER_ENTRY);
