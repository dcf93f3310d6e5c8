import { formatRepo, HOST_PROBLEM_WORDS, QUEUE_STATE_WORDS, wordsFor } from '@railyard/domain';
import { CI_RUN_BUCKETS, type QueueMetricsDoc, type QueueView } from '@railyard/readmodels';
import { barChart, durationChart } from '../charts';
import { html, type SafeHtml } from '../html';
import { stateBadge } from '../layout';
import { duration, percentile, queuePath } from '../links';
import { createQueueForm } from './queue-admin';

export interface QueueSummary {
  view: QueueView;
  depth: number;
  testing: number;
  metrics?: QueueMetricsDoc;
  mergesLastDay: number;
}

const HOUR = 3_600_000;

/** The figures of one queue's card, from the metrics read model's rolling hour and the day's merges. */
export const figuresOf = (q: QueueSummary, now: number) => {
  const log = (q.metrics?.log ?? []).filter(([at]) => at > now - HOUR);
  const merges = log.filter(([, kind, label]) => kind === 'c' && label === 'merged');
  const inQueue = log.filter(([, kind, label]) => kind === 'q' && label === 'merged').map(([, , , s]) => s);
  const perTenMinutes = Array.from(
    { length: 6 },
    (_, i) => merges.filter(([at]) => at > now - HOUR + i * 600_000 && at <= now - HOUR + (i + 1) * 600_000).length,
  );
  const ci = q.metrics?.totals.ciRunsPerMerged;
  const ciBuckets = ci ? ci.cumulative.map((c, i) => c - (i > 0 ? (ci.cumulative[i - 1] ?? 0) : 0)) : [];
  return {
    mergesLastHour: merges.length,
    p50: percentile(inQueue, 50),
    p95: percentile(inQueue, 95),
    inQueue,
    perTenMinutes,
    ciBuckets,
    ciPerMerge: ci && ci.count > 0 ? ci.sum / ci.count : undefined,
  };
};

const maybe = (s: number | undefined): string => (s === undefined ? '—' : duration(s));

/** The overview; `adminCsrf` (an admin's session only) adds the form that creates a queue. */
export const overviewBody = (queues: readonly QueueSummary[], now: number, adminCsrf?: string): SafeHtml => {
  const create = adminCsrf ? createQueueForm(adminCsrf) : '';
  if (queues.length === 0)
    return html`<p>No queue exists yet. An admin creates one here, with <code>railyard queue create</code> or POST /v1/createQueue.</p>
      ${create}`;
  return html`${create}
    <div class="cards">
      ${queues.map((q) => {
        const f = figuresOf(q, now);
        const name = `${formatRepo(q.view.repo)} ${q.view.branch}`;
        return html`<section class="card" aria-label="${name}">
          <h2><a href="${queuePath(q.view.queueId)}">${name}</a></h2>
          <dl>
            <dt>State</dt>
            <dd>
              ${stateBadge(q.view.state, QUEUE_STATE_WORDS)} · ${q.view.settings.mode}
              mode${q.view.hostProblem ? html` · <span class="error" data-code="${q.view.hostProblem.code}">problem: ${wordsFor(HOST_PROBLEM_WORDS, q.view.hostProblem.code)}</span>` : ''}
            </dd>
            <dt>Depth</dt>
            <dd>${q.depth} PR(s), ${q.testing} testing</dd>
            <dt>Merges</dt>
            <dd>${f.mergesLastHour} in the last hour, ${q.mergesLastDay} in the last day</dd>
            <dt>Time in queue</dt>
            <dd>p50 ${maybe(f.p50)}, p95 ${maybe(f.p95)} (last hour)</dd>
            <dt>CI runs per merge</dt>
            <dd>${f.ciPerMerge === undefined ? '—' : (Math.round(f.ciPerMerge * 100) / 100).toString()}</dd>
          </dl>
          ${durationChart(
            'Time in queue of the last hour’s merges',
            f.inQueue.map((v, i) => ({ label: String(i + 1), seconds: v })),
            'merged PRs, oldest first',
          )}
          ${barChart(
            'Merges per 10 minutes over the last hour',
            f.perTenMinutes.map((v, i) => ({ label: `-${60 - i * 10}m`, value: v })),
            { x: '10-minute slots, minutes ago', unit: 'PRs merged' },
            String,
          )}
          ${barChart(
            'Merged PRs by CI runs taken',
            f.ciBuckets.map((v, i) => ({ label: `≤${CI_RUN_BUCKETS[i] ?? '∞'}`, value: v })),
            { x: 'CI runs a PR took to merge', unit: 'PRs' },
            String,
          )}
        </section>`;
      })}
    </div>`;
};
