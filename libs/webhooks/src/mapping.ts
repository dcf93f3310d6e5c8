import { QUEUE_STREAM_PREFIX, type QueueEvent, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import type { CaseRecord } from '@railyard/testhealth';
import type { PrAction } from './event-types';
import type { TrunkEventType, WebhookMessage } from './messages';
import type { DashboardLinks } from './links';
import { TestCaseMapper } from './test-case-mapping';
import { trunkEnum } from './trunk-schemas';

export { dashboardLinks, type DashboardLinks } from './links';

interface Check {
  context: string;
  state: string;
  url?: string;
}

interface Run {
  testRunId: string;
  testBranch: string;
  testBranchSha: string;
  prNumbers: number[];
  bisection: boolean;
  checks: Map<string, Check>;
  /** Per action, the PRs of the run that reached it: the batch event fires when the last one does. */
  reached: Map<PrAction, Set<number>>;
  /** PRs that have moved on (ended, queued again, tested elsewhere): the run is forgotten once all have. */
  left: Set<number>;
}

interface Pr {
  author: string;
  title: string;
  state: string;
  runId?: string;
}

interface Queue {
  queueId: string;
  repo: RepoRef;
  branch: string;
}

/** The fields of a PR event that come from the run testing it (Trunk sends them from `testing` on). */
const runFields = (run: Run | undefined): Record<string, unknown> =>
  run
    ? { test_branch: run.testBranch, test_branch_sha: run.testBranchSha, batched: run.prNumbers.length > 1, is_bisection: run.bisection }
    : { is_bisection: false };

const REASON_FIELD: Partial<Record<PrAction, string>> = {
  submitted: 'submitted_reason',
  queued: 'queued_reason',
  pending_failure: 'failure_reason',
  failed: 'failure_reason',
  canceled: 'cancellation_reason',
  merged: 'merged_reason',
};

/** Actions after which a PR has left its run. */
const LEAVES_RUN: ReadonlySet<PrAction> = new Set(['queued', 'failed', 'canceled', 'merged']);
const ENDS_PR: ReadonlySet<PrAction> = new Set(['failed', 'canceled', 'merged']);

/**
 * Turns Railyard's event log into webhook messages, in log order: the one place that knows which
 * domain event is which Trunk event. It folds what the messages need but single events do not carry
 * (the queue's repository and branch, the PR's author, the run testing it and its checks' links), so
 * it must see the log from its start; it does no I/O and reads no clock (messages carry the event's
 * own time), so the same log always gives the same messages (docs/webhooks.md, "Events").
 */
export class WebhookMapper {
  private readonly queues = new Map<string, Queue>();
  private readonly prs = new Map<string, Pr>();
  private readonly runs = new Map<string, Run>();
  private readonly testCases: TestCaseMapper | undefined;

  /** `o.tests: false` skips the test-health streams: an endpoint that wants no test_case event need not fold them. */
  constructor(
    private readonly links: DashboardLinks,
    o: { tests?: boolean } = {},
  ) {
    this.testCases = o.tests === false ? undefined : new TestCaseMapper(links);
  }

  /** `cases`: a test upload's cases when the event names a blob instead of carrying them (see TestCaseMapper). */
  apply(recorded: RecordedEvent, cases?: readonly CaseRecord[]): WebhookMessage[] {
    if (!recorded.streamId.startsWith(QUEUE_STREAM_PREFIX)) {
      const messages = this.testCases?.apply(recorded, cases) ?? [];
      return messages.map((m, index) => ({ ...m, eventId: recorded.eventId, position: recorded.position, index }));
    }
    const event = { type: recorded.type, data: recorded.data } as QueueEvent;
    const stream = recorded.streamId;
    const out: Omit<WebhookMessage, 'eventId' | 'position' | 'index'>[] = [];
    if (event.type === 'QueueCreated') {
      this.queues.set(stream, { queueId: event.data.queueId, repo: event.data.repo, branch: event.data.branch });
      return [];
    }
    const queue = this.queues.get(stream);
    if (!queue) return [];
    const at = event.data.at;
    const prKey = (n: number): string => `${stream}#${n}`;
    const runKey = (id: string): string => `${stream}#${id}`;
    const repository = { host: queue.repo.host, owner: queue.repo.owner, name: queue.repo.name };

    const pr = (prNumber: number, action: PrAction, extra: Record<string, unknown>, reason?: string): void => {
      const entry = this.prs.get(prKey(prNumber));
      if (!entry) return;
      const type: TrunkEventType = `pull_request.${action}`;
      const field = REASON_FIELD[action];
      const payload: Record<string, unknown> = {
        ...extra,
        type,
        action,
        status: action,
        author: entry.author,
        http_details_url: this.links.pr(queue.queueId, prNumber),
        pr_number: prNumber,
        repository,
        target_branch: queue.branch,
        timestamp: at,
        railyard_pr_title: entry.title,
      };
      // A reason Trunk's enum does not know (API_REQUESTED cancels, flake re-runs) keeps Trunk's field out.
      if (field && reason !== undefined) {
        if (trunkEnum(type, field).has(reason)) payload[field] = reason;
        payload.railyard_reason = reason;
      }
      out.push({ type, payload, repo: queue.repo, targetBranch: queue.branch });
      this.reach(entry, prNumber, action, stream, (run, batchAction) => {
        const batchType: TrunkEventType = `pull_request_batch.${batchAction}`;
        const batch: Record<string, unknown> = {
          test_branch: run.testBranch,
          test_branch_sha: run.testBranchSha,
          type: batchType,
          action: batchAction,
          status: batchAction,
          pr_numbers: [...(run.reached.get(batchAction) ?? [])].sort((a, b) => a - b),
          pr_numbers_in_batch: run.prNumbers,
          repository,
          target_branch: queue.branch,
          timestamp: at,
          is_bisection: run.bisection,
        };
        if (field && reason !== undefined && trunkEnum(batchType, field).has(reason)) batch[field] = reason;
        out.push({ type: batchType, payload: batch, repo: queue.repo, targetBranch: queue.branch });
      });
      if (ENDS_PR.has(action)) this.prs.delete(prKey(prNumber));
    };

    switch (event.type) {
      case 'QueueStateChanged': {
        const to = event.data.to;
        if (to === 'switching_modes') break;
        out.push({
          type: 'queue.state_changed',
          payload: {
            type: 'queue.state_changed',
            action: to,
            status: to,
            previous_status: event.data.from,
            repository,
            target_branch: queue.branch,
            timestamp: at,
            http_details_url: this.links.queue(queue.queueId),
          },
          repo: queue.repo,
          targetBranch: queue.branch,
        });
        break;
      }
      case 'PrSubmitted': {
        const d = event.data;
        this.prs.set(prKey(d.prNumber), { author: d.author, title: d.title, state: d.state });
        pr(d.prNumber, 'submitted', {}, d.reason);
        if (d.state === 'pending') pr(d.prNumber, 'queued', {}, 'MERGE_ITEM_NOW_READY');
        break;
      }
      case 'PrReadinessChanged': {
        const entry = this.prs.get(prKey(event.data.prNumber));
        if (!entry) break;
        const was = entry.state;
        entry.state = event.data.state;
        if (was === 'not_ready' && event.data.state === 'pending') pr(event.data.prNumber, 'queued', {}, event.data.reason);
        break;
      }
      case 'TestsRestarted': {
        const entry = this.prs.get(prKey(event.data.prNumber));
        if (entry) entry.state = 'pending';
        pr(event.data.prNumber, 'queued', {}, event.data.reason);
        break;
      }
      case 'TestRunStarted': {
        const d = event.data;
        this.runs.set(runKey(d.testRunId), {
          testRunId: d.testRunId,
          testBranch: d.testBranch,
          testBranchSha: d.testBranchSha,
          prNumbers: [...d.prNumbers],
          bisection: d.bisection,
          checks: new Map(),
          reached: new Map(),
          left: new Set(),
        });
        // Trunk's batch "submitted" has a test branch: the batch exists from the moment a run tests several PRs together.
        if (d.prNumbers.length > 1) {
          const type: TrunkEventType = 'pull_request_batch.submitted';
          out.push({
            type,
            payload: {
              test_branch: d.testBranch,
              test_branch_sha: d.testBranchSha,
              type,
              action: 'submitted',
              status: 'submitted',
              pr_numbers: [...d.prNumbers].sort((a, b) => a - b),
              pr_numbers_in_batch: d.prNumbers,
              repository,
              target_branch: queue.branch,
              timestamp: at,
              is_bisection: d.bisection,
            },
            repo: queue.repo,
            targetBranch: queue.branch,
          });
        }
        break;
      }
      case 'TestRunStatusReported': {
        const run = this.runs.get(runKey(event.data.testRunId));
        run?.checks.set(event.data.context, {
          context: event.data.context,
          state: event.data.state,
          ...(event.data.url ? { url: event.data.url } : {}),
        });
        break;
      }
      case 'PrTestingStarted': {
        const entry = this.prs.get(prKey(event.data.prNumber));
        if (!entry) break;
        const previous = entry.runId;
        if (previous && previous !== event.data.testRunId) this.leave(stream, previous, event.data.prNumber);
        entry.runId = event.data.testRunId;
        entry.state = 'testing';
        pr(event.data.prNumber, 'testing', runFields(this.runs.get(runKey(event.data.testRunId))));
        break;
      }
      case 'PrPendingFailure': {
        const run = this.runs.get(runKey(event.data.testRunId));
        pr(
          event.data.prNumber,
          'pending_failure',
          { ...runFields(run), railyard_failing_checks: this.failingChecks(run, event.data.failedContexts) },
          'TEST_RUN_REQUIRED_STATUS_FAILED',
        );
        break;
      }
      case 'PrFailed': {
        const run = this.runOf(stream, event.data.prNumber, event.data.testRunId);
        pr(
          event.data.prNumber,
          'failed',
          { ...runFields(run), railyard_detail: event.data.detail, railyard_failing_checks: this.failingChecks(run) },
          event.data.reason,
        );
        break;
      }
      case 'PrCancelled':
        pr(event.data.prNumber, 'canceled', runFields(this.runOf(stream, event.data.prNumber)), event.data.reason);
        break;
      case 'PrMerged': {
        const run = this.runOf(stream, event.data.prNumber, event.data.testRunId);
        pr(event.data.prNumber, 'merged', { ...runFields(run), railyard_merge_sha: event.data.mergeSha }, event.data.reason);
        break;
      }
      default:
        break;
    }
    return out.map((m, index) => ({ ...m, eventId: recorded.eventId, position: recorded.position, index }));
  }

  private runOf(stream: string, prNumber: number, testRunId?: string): Run | undefined {
    const id = testRunId ?? this.prs.get(`${stream}#${prNumber}`)?.runId;
    return id ? this.runs.get(`${stream}#${id}`) : undefined;
  }

  /** The run's checks that failed (all of them, or the named contexts), each with its log link when CI gave one. */
  private failingChecks(run: Run | undefined, contexts?: string[]): Check[] {
    if (!run) return [];
    const failed = [...run.checks.values()].filter((c) => c.state === 'failure' || c.state === 'error');
    return contexts ? failed.filter((c) => contexts.includes(c.context)) : failed;
  }

  /** Records that the PR's run reached `action`; `batch` is called when it was the last PR of a batch run to do so. */
  private reach(entry: Pr, prNumber: number, action: PrAction, stream: string, batch: (run: Run, action: PrAction) => void): void {
    const runId = entry.runId;
    if (!runId || action === 'submitted') return;
    const run = this.runs.get(`${stream}#${runId}`);
    if (!run) return;
    if (run.prNumbers.length > 1 && run.prNumbers.includes(prNumber)) {
      const reached = run.reached.get(action) ?? new Set<number>();
      const before = reached.size;
      reached.add(prNumber);
      run.reached.set(action, reached);
      if (before < run.prNumbers.length && run.prNumbers.every((n) => reached.has(n))) batch(run, action);
    }
    if (LEAVES_RUN.has(action)) {
      entry.runId = undefined;
      this.leave(stream, runId, prNumber);
    }
  }

  /** Forgets a run once every PR it tested has moved on, so the fold stays as small as the live queue. */
  private leave(stream: string, runId: string, prNumber: number): void {
    const key = `${stream}#${runId}`;
    const run = this.runs.get(key);
    if (!run) return;
    run.left.add(prNumber);
    if (run.prNumbers.every((n) => run.left.has(n))) this.runs.delete(key);
  }
}
