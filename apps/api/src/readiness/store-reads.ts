/**
 * Set on a read answered from the event store (the queue's stream) instead of the read models,
 * because they lag or no projector runs (docs/api.md, "Reads while the read models lag").
 */
export const STORE_READ_HEADER = 'x-railyard-read-source';
