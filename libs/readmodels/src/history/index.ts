export { historyEntryOf, type HistoryEntry } from './entry';
export { historyPage, HISTORY_PAGE_SIZE, type HistoryPage, type HistoryQuery } from './page';
export { queueStateAt, replayQueue, type ReplayableEvent } from './replay';
