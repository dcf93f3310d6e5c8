import type { QueueEvent } from '../events';
import { at } from '../testing/fixtures';
import { BASE_SHA, facts, runStarted } from './testing/engine-fixtures';
import { givenQueue } from './testing/engine-spec';
import { queueWith, rec, startOf } from './testing/plan-helpers';

/** Run r1 testing PR 1, with `tests` run by the local CI (its config commit says so). */
const localRun = (): QueueEvent[] => {
  const [started, ...rest] = runStarted('r1', 1) as [Extract<QueueEvent, { type: 'TestRunStarted' }>, ...QueueEvent[]];
  return [{ ...started, data: { ...started.data, localChecks: ['tests'] } }, ...rest];
};
const SHA = 'r1-c0';
const reportersSet = (statusReporters: Record<string, string[]>): QueueEvent => ({
  type: 'QueueConfigUpdated',
  data: { changes: {}, statusReporters, at: at(1) },
});

describe('plan: who may report a status (statusReports)', () => {
  it('when a token forges success for a check the local CI runs, then it is kept as not counted and the local CI’s verdict is what counts', () => {
    const history = [...queueWith({}, [1]), ...localRun()];
    const reports = [
      { context: 'tests', state: 'pending' as const, reporter: 'local-ci' },
      { context: 'tests', state: 'success' as const, reporter: 'token:ci', url: 'https://forged' },
    ];
    expect(givenQueue(history).planned(facts({ statuses: [[SHA, reports]] }))).toEqual([
      rec({ type: 'ReportTestStatus', testRunId: 'r1', context: 'tests', state: 'pending', reporter: 'local-ci' }),
      rec({
        type: 'ReportStatusNotCounted',
        testRunId: 'r1',
        context: 'tests',
        state: 'success',
        url: 'https://forged',
        reporter: 'token:ci',
        why: 'LOCAL_CI_ONLY',
      }),
    ]);
  });

  it('when the queue names who reports a context, then another token’s success is not counted', () => {
    const history = [...queueWith({}, [1]), reportersSet({ tests: ['jenkins'] }), ...runStarted('r1', 1)];
    expect(
      givenQueue(history).planned(
        facts({
          statuses: [
            [
              SHA,
              [
                { context: 'tests', state: 'success', reporter: 'token:ci' },
                { context: 'tests', state: 'failure', reporter: 'token:jenkins' },
              ],
            ],
          ],
        }),
      ),
    ).toEqual([
      rec({ type: 'ReportTestStatus', testRunId: 'r1', context: 'tests', state: 'failure', reporter: 'token:jenkins' }),
      rec({
        type: 'ReportStatusNotCounted',
        testRunId: 'r1',
        context: 'tests',
        state: 'success',
        reporter: 'token:ci',
        why: 'REPORTER_NOT_ALLOWED',
      }),
    ]);
  });

  it('when a run was recorded before its local checks were kept, then a token’s status counts as it did then', () => {
    // runStarted carries no localChecks: such a run keeps the rule it started under (docs/security.md).
    const history = [...queueWith({}, [1]), ...runStarted('r1', 1)];
    const reports = [{ context: 'tests', state: 'success' as const, reporter: 'token:ci' }];
    expect(givenQueue(history).planned(facts({ statuses: [[SHA, reports]] }))).toEqual([
      rec({ type: 'ReportTestStatus', testRunId: 'r1', context: 'tests', state: 'success', reporter: 'token:ci' }),
    ]);
  });

  it('when a not-counted status was already kept, then it is not kept again', () => {
    const kept: QueueEvent = {
      type: 'TestRunStatusNotCounted',
      data: {
        testRunId: 'r1',
        context: 'tests',
        state: 'success',
        reporter: 'token:ci',
        why: 'LOCAL_CI_ONLY',
        at: '2025-06-01T09:46:00.000Z',
      },
    };
    const history = [...queueWith({}, [1]), ...localRun(), kept];
    expect(
      givenQueue(history).planned(facts({ statuses: [[SHA, [{ context: 'tests', state: 'success', reporter: 'token:ci' }]]] })),
    ).toEqual([]);
  });
});

describe('plan: direct merge and who reported the head’s statuses', () => {
  const always = queueWith({ directMergeMode: 'always' }, [1]);
  const dm = (headStatuses: { context: string; state: 'success'; reporter?: string }[], localChecks: string[] = []) => ({
    prNumber: 1,
    upToDate: true,
    headSha: 'sha-1',
    headTree: 'T+1',
    requiredStatuses: ['tests'],
    localChecks,
    headStatuses,
  });

  it('when a token reports success on the head for a check the local CI runs, then the PR is tested as usual', () => {
    expect(
      givenQueue(always).planned(facts({ directMerge: dm([{ context: 'tests', state: 'success', reporter: 'token:ci' }], ['tests']) })),
    ).toEqual([startOf(1)]);
  });

  it('when the queue names the token that reported success on the head, then it merges directly; another token’s does not', () => {
    const named = [...always, reportersSet({ tests: ['jenkins'] })];
    expect(
      givenQueue(named).planned(facts({ directMerge: dm([{ context: 'tests', state: 'success', reporter: 'token:jenkins' }]) })),
    ).toEqual([{ kind: 'directMerge', prNumber: 1, headSha: 'sha-1', baseSha: BASE_SHA }]);
    expect(givenQueue(named).planned(facts({ directMerge: dm([{ context: 'tests', state: 'success', reporter: 'token:ci' }]) }))).toEqual([
      startOf(1),
    ]);
  });
});
