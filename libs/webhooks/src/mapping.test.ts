import { dashboardLinks, WebhookMapper } from './mapping';
import type { WebhookMessage } from './messages';
import { LogBuilder, trunkSchemaProblem, typesOf } from './testing/log';

const mapAll = (log: LogBuilder): WebhookMessage[] => {
  const mapper = new WebhookMapper(dashboardLinks('https://railyard.example.com/'));
  return log.events.flatMap((e) => mapper.apply(e));
};

const expectAllValid = (messages: WebhookMessage[]): void => {
  for (const m of messages)
    expect({ type: m.type, problem: trunkSchemaProblem(m.type, m.payload) }).toEqual({ type: m.type, problem: undefined });
};

describe('WebhookMapper', () => {
  it('when a PR goes from submission to merge, then it gives submitted, queued, testing, merged in order, each valid against Trunk', () => {
    const log = new LogBuilder()
      .created()
      .submitted(7)
      .testing('run1', [7])
      .add('TestRunStatusReported', { testRunId: 'run1', context: 'ci', state: 'success' })
      .add('TestRunSucceeded', { testRunId: 'run1' })
      .add('PrTestsPassed', { prNumber: 7, testRunId: 'run1', reason: 'TEST_RUN_PASSED' })
      .add('PrMerged', { prNumber: 7, mergeSha: 'm7', testRunId: 'run1', reason: 'MERGE_GRAPH_MERGE' });
    const messages = mapAll(log);
    expect(typesOf(messages)).toEqual(['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged']);
    expectAllValid(messages);
    const merged = messages[3]?.payload;
    expect(merged).toMatchObject({
      pr_number: 7,
      author: 'octocat',
      merged_reason: 'MERGE_GRAPH_MERGE',
      test_branch: 'railyard/test/run1',
      batched: false,
      http_details_url: 'https://railyard.example.com/queues/github.com~acme~rocket~main/prs/7',
      repository: { host: 'github.com', owner: 'acme', name: 'rocket' },
      target_branch: 'main',
    });
  });

  it('when a PR fails its checks, then pending_failure and failed carry Trunk reasons and the failing check with its log link', () => {
    const log = new LogBuilder()
      .created()
      .submitted(8)
      .testing('run2', [8])
      .add('TestRunStatusReported', { testRunId: 'run2', context: 'ci', state: 'failure', url: 'https://ci.example.com/logs/1' })
      .add('PrPendingFailure', { prNumber: 8, testRunId: 'run2', failedContexts: ['ci'] })
      .add('TestRunFailed', { testRunId: 'run2', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failedContexts: ['ci'] })
      .add('PrFailed', { prNumber: 8, testRunId: 'run2', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'ci failed' });
    const messages = mapAll(log);
    expect(typesOf(messages).slice(3)).toEqual(['pull_request.pending_failure', 'pull_request.failed']);
    expectAllValid(messages);
    expect(messages[4]?.payload).toMatchObject({
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      is_bisection: false,
      railyard_detail: 'ci failed',
      railyard_failing_checks: [{ context: 'ci', state: 'failure', url: 'https://ci.example.com/logs/1' }],
    });
  });

  it('when a run tests one PR alone, then no batch event is sent, submitted included', () => {
    const messages = mapAll(new LogBuilder().created().submitted(4).testing('solo', [4]));
    expect(messages.filter((m) => m.type.startsWith('pull_request_batch.'))).toEqual([]);
  });

  it('when a PR is cancelled by API, then Trunk gets canceled (one l) without a reason its enum lacks, and ours says API_REQUESTED', () => {
    const messages = mapAll(new LogBuilder().created().submitted(9).add('PrCancelled', { prNumber: 9, reason: 'API_REQUESTED' }));
    const canceled = messages.at(-1);
    expect(canceled?.type).toBe('pull_request.canceled');
    expect(canceled?.payload).not.toHaveProperty('cancellation_reason');
    expect(canceled?.payload).toMatchObject({
      status: 'canceled',
      action: 'canceled',
      railyard_reason: 'API_REQUESTED',
      is_bisection: false,
    });
    expectAllValid(messages);
  });

  it('when a PR is closed while queued, then canceled carries PR_CLOSED in Trunk field', () => {
    const messages = mapAll(new LogBuilder().created().submitted(9).add('PrCancelled', { prNumber: 9, reason: 'PR_CLOSED' }));
    expect(messages.at(-1)?.payload).toMatchObject({ cancellation_reason: 'PR_CLOSED' });
    expectAllValid(messages);
  });

  it('when a PR waits for readiness, then queued comes only once it is ready, with MERGE_ITEM_NOW_READY', () => {
    const log = new LogBuilder()
      .created()
      .submitted(3, 'not_ready')
      .add('PrReadinessChanged', {
        prNumber: 3,
        readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, mergeability: 'mergeable' },
        state: 'pending',
        reason: 'MERGE_ITEM_NOW_READY',
      });
    const messages = mapAll(log);
    expect(typesOf(messages)).toEqual(['pull_request.submitted', 'pull_request.queued']);
    expect(messages[1]?.payload).toMatchObject({ queued_reason: 'MERGE_ITEM_NOW_READY' });
    expectAllValid(messages);
  });

  it('when a batch of two is tested, bisected and both merge, then the batch events fire once the last PR reaches each state', () => {
    const log = new LogBuilder()
      .created()
      .submitted(1)
      .submitted(2)
      .testing('b1', [1, 2])
      .add('TestRunStatusReported', { testRunId: 'b1', context: 'ci', state: 'failure' })
      .add('PrPendingFailure', { prNumber: 1, testRunId: 'b1', failedContexts: ['ci'] })
      .add('PrPendingFailure', { prNumber: 2, testRunId: 'b1', failedContexts: ['ci'] })
      .add('TestsRestarted', { prNumber: 1, reason: 'BISECTION_REQUIRED' })
      .add('TestsRestarted', { prNumber: 2, reason: 'BISECTION_REQUIRED' })
      .testing('b2', [1, 2], true)
      .add('PrMerged', { prNumber: 1, mergeSha: 'm1', testRunId: 'b2', reason: 'MERGE_GRAPH_MERGE' })
      .add('PrMerged', { prNumber: 2, mergeSha: 'm2', testRunId: 'b2', reason: 'MERGE_GRAPH_MERGE' });
    const messages = mapAll(log);
    const batch = messages.filter((m) => m.type.startsWith('pull_request_batch.'));
    expect(typesOf(batch)).toEqual([
      'pull_request_batch.submitted',
      'pull_request_batch.testing',
      'pull_request_batch.pending_failure',
      'pull_request_batch.queued',
      'pull_request_batch.submitted',
      'pull_request_batch.testing',
      'pull_request_batch.merged',
    ]);
    expect(batch[0]?.payload).toMatchObject({ test_branch: 'railyard/test/b1', pr_numbers: [1, 2], pr_numbers_in_batch: [1, 2] });
    expect(batch[3]?.payload).toMatchObject({ queued_reason: 'BISECTION_REQUIRED', pr_numbers: [1, 2], pr_numbers_in_batch: [1, 2] });
    expect(batch[5]?.payload).toMatchObject({ is_bisection: true });
    expectAllValid(messages);
  });

  it('when a batch PR is cancelled, then pull_request.canceled says the batch it was in and stays valid', () => {
    const log = new LogBuilder()
      .created()
      .submitted(1)
      .submitted(2)
      .testing('b1', [1, 2])
      .add('PrCancelled', { prNumber: 2, reason: 'PR_PUSHED_TO' });
    const messages = mapAll(log);
    expect(messages.at(-1)?.payload).toMatchObject({ type: 'pull_request.canceled', batched: true, test_branch: 'railyard/test/b1' });
    expectAllValid(messages);
  });

  it('when the queue is paused, drained and resumed, then queue.state_changed says each, and switching modes says nothing', () => {
    const log = new LogBuilder()
      .created()
      .add('QueueStateChanged', { from: 'running', to: 'paused' })
      .add('QueueStateChanged', { from: 'paused', to: 'draining' })
      .add('QueueStateChanged', { from: 'draining', to: 'switching_modes' })
      .add('QueueStateChanged', { from: 'switching_modes', to: 'running' });
    const messages = mapAll(log);
    expect(messages.map((m) => [m.type, m.payload.status, m.payload.previous_status])).toEqual([
      ['queue.state_changed', 'paused', 'running'],
      ['queue.state_changed', 'draining', 'paused'],
      ['queue.state_changed', 'running', 'switching_modes'],
    ]);
  });

  it('when one event gives several messages, then each has the event position and its own index', () => {
    const messages = mapAll(new LogBuilder().created().submitted(5));
    expect(messages.map((m) => [m.position, m.index, m.eventId])).toEqual([
      [2n, 0, 'ev-2'],
      [2n, 1, 'ev-2'],
    ]);
  });

  it('when events of other streams or of an unknown queue come, then they give nothing', () => {
    const other = new LogBuilder('tests-github.com~acme~rocket').created().submitted(1);
    expect(mapAll(other)).toEqual([]);
    expect(mapAll(new LogBuilder().submitted(1))).toEqual([]);
  });

  it('when a payload breaks Trunk schema, then the validator says so (the check can fail)', () => {
    expect(trunkSchemaProblem('pull_request.merged', { type: 'pull_request.merged' })).toMatch(/required/);
  });
});
