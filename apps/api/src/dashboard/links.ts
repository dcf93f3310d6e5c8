/** Dashboard paths; a queue id percent-encodes its parts and is encoded once more as one path segment. */
export const queuePath = (queueId: string): string => `/queues/${encodeURIComponent(queueId)}`;
export const prPath = (queueId: string, prNumber: number): string => `${queuePath(queueId)}/prs/${prNumber}`;
export const runPath = (queueId: string, testRunId: string): string => `${queuePath(queueId)}/runs/${encodeURIComponent(testRunId)}`;
export const historyPath = (queueId: string, at?: string): string =>
  `${queuePath(queueId)}/history${at ? `?at=${encodeURIComponent(at)}` : ''}`;

/** 1.5 s, 4 min, 2.1 h. */
export const duration = (seconds: number): string =>
  seconds < 60
    ? `${Math.round(seconds * 10) / 10} s`
    : seconds < 3600
      ? `${Math.round(seconds / 6) / 10} min`
      : `${Math.round(seconds / 360) / 10} h`;

/** Nearest-rank percentile of unsorted values; undefined when there are none. */
export const percentile = (values: readonly number[], p: number): number | undefined => {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
