/**
 * Everything the CLI takes from other parts to read a queue's events directly: the runtime's
 * configuration and event store, and the audit-trail shapes. Kept in this one file so a move of
 * those parts touches the CLI here only.
 */
export { historyEntryOf, replayQueue, type HistoryEntry, type HistoryPage } from '@railyard/readmodels';
export { loadConfig, openEventStore } from '@railyard/runtime';
