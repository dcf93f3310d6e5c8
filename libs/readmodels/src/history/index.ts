export { historyEntryOf, type HistoryEntry } from './entry';
export { historyPage, HISTORY_PAGE_SIZE, type HistoryPage, type HistoryQuery } from './page';
export { queueStateAt, replayQueue, type ReplayableEvent } from './replay';
export { estimateSecondsToMerge, ESTIMATE_RUNS, runTimeBasis, runTimesOf, type RunTime, type RunTimeBasis } from './run-times';
