import { FAILURES_KEPT, FAILURES_SHOWN, failureSummary, mostCommonFailures, tallyFailure, type FailureCount } from './failure-tally';

const at = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();
const tallyOf = (summaries: string[]): FailureCount[] => summaries.reduce<FailureCount[]>((t, s, i) => tallyFailure(t, s, at(i)), []);

describe('failure tally', () => {
  it('when a message has several lines, then its first line, trimmed, is its summary; no message reads "failed"', () => {
    expect(failureSummary('  expected 2, got 3 \n    at cart.test.ts:12')).toBe('expected 2, got 3');
    expect(failureSummary(undefined)).toBe('failed');
    expect(failureSummary('\nsecond line')).toBe('failed');
    expect(failureSummary('x'.repeat(500))).toHaveLength(200);
  });

  it('when failures repeat, then they are counted, commonest first, with the last time each was seen', () => {
    expect(tallyOf(['a', 'b', 'a', 'c', 'a', 'b'])).toEqual([
      { summary: 'a', count: 3, last: at(4) },
      { summary: 'b', count: 2, last: at(5) },
      { summary: 'c', count: 1, last: at(3) },
    ]);
  });

  it('when an upload arrives late, then the last time seen does not go back', () => {
    const t = tallyFailure(tallyFailure([], 'a', at(9)), 'a', at(1));
    expect(t).toEqual([{ summary: 'a', count: 2, last: at(9) }]);
  });

  it('when more distinct messages come than are kept, then the rarest oldest one makes room and a new message gets a place', () => {
    const common = Array.from({ length: FAILURES_KEPT }, (_, i) => [`m${i}`, `m${i}`]).flat();
    const t = tallyOf([...common, 'new']);
    expect(t).toHaveLength(FAILURES_KEPT);
    expect(t.map((f) => f.summary)).toContain('new');
    expect(t.map((f) => f.summary)).not.toContain('m0');
  });

  it('when shown, then at most the commonest few are, in Trunk’s field names', () => {
    const shown = mostCommonFailures(tallyOf(['a', 'a', 'b', 'c', 'd', 'e', 'f', 'g']));
    expect(shown).toHaveLength(FAILURES_SHOWN);
    expect(shown[0]).toEqual({ summary: 'a', occurrence_count: 2, last_occurrence: at(1) });
    expect(mostCommonFailures(undefined)).toEqual([]);
  });
});
