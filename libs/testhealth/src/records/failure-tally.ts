/** How often one failure message (its first line) was seen for a test, and when last. */
export interface FailureCount {
  summary: string;
  count: number;
  last: string;
}

/** Distinct summaries kept per test: enough for Trunk's "most common", bounded however noisy a test is. */
export const FAILURES_KEPT = 20;
/** How many of them the API and the webhooks show (`most_common_failures`). */
export const FAILURES_SHOWN = 5;
const SUMMARY_CHARS = 200;

/** A failure message's first line, trimmed and bounded; `failed` when the report gave no message. */
export const failureSummary = (message: string | undefined): string =>
  ((message ?? '').split('\n', 1)[0] ?? '').trim().slice(0, SUMMARY_CHARS) || 'failed';

const commonestFirst = (a: FailureCount, b: FailureCount): number => b.count - a.count || b.last.localeCompare(a.last);

/**
 * The tally with one more failure of `summary` at `at`, commonest first. Past FAILURES_KEPT the rarest
 * summary, and of those the one seen longest ago, is dropped, so a new message always gets a place.
 */
export const tallyFailure = (tally: readonly FailureCount[], summary: string, at: string): FailureCount[] => {
  const seen = tally.find((f) => f.summary === summary);
  const counted = { summary, count: (seen?.count ?? 0) + 1, last: seen && seen.last > at ? seen.last : at };
  const rest = tally.filter((f) => f.summary !== summary).sort(commonestFirst);
  if (rest.length >= FAILURES_KEPT) rest.splice(rest.length - 1, 1);
  return [...rest, counted].sort(commonestFirst);
};

/** Trunk's `most_common_failures`: the commonest summaries first, at most FAILURES_SHOWN. */
export const mostCommonFailures = (
  tally: readonly FailureCount[] | undefined,
): { summary: string; occurrence_count: number; last_occurrence: string }[] =>
  [...(tally ?? [])]
    .sort(commonestFirst)
    .slice(0, FAILURES_SHOWN)
    .map((f) => ({ summary: f.summary, occurrence_count: f.count, last_occurrence: f.last }));
