import { HOST_PROBLEM_CODES } from '../events-engine';
import { PR_STATES } from '../events';
import { eventWords, HOST_PROBLEM_WORDS, PR_STATE_WORDS, REASON_WORDS, waitingWords, wordsFor } from './words';

describe('plain words for codes', () => {
  it('when a code is in the table, then its words are given; when it is not, then the code reads as lower-case words', () => {
    expect(wordsFor(REASON_WORDS, 'SKIP_THE_LINE_INTERRUPTED')).toBe('an urgent PR took its place');
    expect(wordsFor(REASON_WORDS, 'SOME_NEW_CODE')).toBe('some new code');
  });

  it('when a PR state or host problem exists, then it has words of its own, none of them the code', () => {
    for (const s of PR_STATES) expect(PR_STATE_WORDS[s]).not.toMatch(/_/);
    for (const c of HOST_PROBLEM_CODES) {
      expect(HOST_PROBLEM_WORDS[c]).not.toContain(c);
      expect(REASON_WORDS[c]).toBe(HOST_PROBLEM_WORDS[c]);
    }
  });

  it('when an event name is camel case, then it reads as a sentence with PR in capitals', () => {
    expect(eventWords('PrFailed')).toBe('PR failed');
    expect(eventWords('TestRunStarted')).toBe('Test run started');
  });

  it('when a PR waits on checks, then the words name the checks and no run id', () => {
    expect(
      waitingWords({
        kind: 'required_statuses',
        message: 'required statuses missing on run ffb25c40-x: integration',
        checks: ['integration'],
      }),
    ).toBe('checks still running: integration');
    expect(waitingWords({ kind: 'required_statuses', message: 'run x to report its result', checks: [] })).toBe(
      'its test run to report the result',
    );
  });
});
