import { HOST_PROBLEM_WORDS, QUEUE_STATE_WORDS, REQUIRED_STATUSES_SOURCE_WORDS, waitingWords, type Explanation } from '@railyard/domain';
import type { PrView, QueueView, RunTime, TestRunView } from '@railyard/readmodels';
import { estimateSecondsToMerge, runTimeBasis } from '@railyard/readmodels';
import { durationChart, runGraph } from '../charts';
import { clock, plain, prose, shortId, span } from '../format';
import { html, type SafeHtml } from '../html';
import { csrfField, stateBadge, tableHead } from '../layout';
import { duration, historyPath, prPath, queuePath, runPath } from '../links';
import type { Session } from '../session';
import { checksTable } from './pr';
import { queueSettingsForm } from './queue-admin';

export interface QueuePageData {
  view: QueueView;
  prs: PrView[];
  explanations: Explanation[];
  runs: TestRunView[];
  /** Merged, failed and cancelled PRs of the window, latest first, each with its explanation. */
  outcomes: { pr: PrView; explanation: Explanation }[];
  /** Every run of the queue's history, in start order. */
  runTimes: RunTime[];
  outcomesWindowHours: number;
  now: number;
}

const stateForms = (q: QueueView, csrf: string): SafeHtml => {
  const action = (state: string, label: string) =>
    q.state === state
      ? ''
      : html`<form class="inline" method="post" action="${queuePath(q.queueId)}/state">
          ${csrfField(csrf)}<input type="hidden" name="state" value="${state}" /><button>${label}</button>
        </form>`;
  return html`<p>${action('paused', 'Pause')} ${action('running', 'Resume')} ${action('draining', 'Drain')}</p>`;
};

/** A problem the engine reported for the queue: said as a problem, not as an empty queue. */
const hostProblem = (q: QueueView, now: number): SafeHtml =>
  q.hostProblem
    ? html`<div class="problem" role="alert" data-code="${q.hostProblem.code}">
        <strong>Problem:</strong> ${plain(HOST_PROBLEM_WORDS, q.hostProblem.code, 'words')}.
        <span class="muted">Since ${clock(q.hostProblem.since, now)} · code <code>${q.hostProblem.code}</code></span>
        ${q.hostProblem.detail ? html`<br />${prose(q.hostProblem.detail)}` : ''}
      </div>`
    : html``;

/** One run in flight: what it tests on what, how long it has run, and each check with its duration. */
const runInFlight = (q: QueueView, r: TestRunView, now: number): SafeHtml => {
  const end = r.outcome?.at;
  return html`<section class="run" aria-label="run ${r.testRunId}">
    <h3>
      <a href="${runPath(q.queueId, r.testRunId)}">Run ${shortId(r.testRunId)}</a> tests
      ${r.testedPrs.map((p) => html`<a href="${prPath(q.queueId, p.prNumber)}">#${p.prNumber}</a> `)} on
      ${r.dependentPrs.length === 0 ? 'the target branch' : r.dependentPrs.map((p) => `#${p.prNumber}`).join(', ')}
    </h3>
    <p>Started ${clock(r.createdAt, now)}, running for ${span(r.createdAt, end ?? now)}.</p>
    ${checksTable(r, now)}
  </section>`;
};

const waitingTable = (d: QueuePageData): SafeHtml => {
  const q = d.view;
  const basis = runTimeBasis(d.runTimes);
  const estimates = estimateSecondsToMerge(
    d.prs.map((p) => ({ state: p.state, ...(p.state === 'testing' ? { testingSince: p.stateChangedAt } : {}) })),
    q.settings.concurrency,
    basis,
    d.now,
  );
  return html`<div class="scroll">
      <table class="stack">
        ${tableHead('#', 'PR', 'State', 'In queue', 'Waiting on', 'Merge in (estimate)')}
        <tbody>
          ${d.prs.map((p, i) => {
            const x = d.explanations[i];
            const eta = estimates[i];
            return html`<tr data-pr="${p.prNumber}" data-state="${p.state}">
              <td data-label="#">${i + 1}</td>
              <td data-label="PR">
                <a href="${prPath(q.queueId, p.prNumber)}">#${p.prNumber}</a> ${p.prTitle} <span class="muted">by ${p.prAuthor}</span>
              </td>
              <td data-label="State">
                ${stateBadge(p.state)}${p.state === 'testing' ? html` for ${span(p.stateChangedAt, d.now)}` : ''}
                ${p.priorityName !== 'medium' ? html`<span class="muted">(${p.priorityName} priority)</span>` : ''}
              </td>
              <td data-label="In queue">${span(p.submittedAt, d.now)}</td>
              <td data-label="Waiting on">
                ${(x?.waitingOn ?? []).map((w, j) => html`${j > 0 ? '; ' : ''}<span data-kind="${w.kind}">${prose(waitingWords(w))}</span>`)}
              </td>
              <td data-label="Merge in (estimate)" class="eta">
                ${eta === undefined ? html`<span class="muted">no estimate yet</span>` : eta < 1 ? 'any moment (its run is past the usual length)' : html`~${duration(eta)}`}
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    <p class="muted">
      ${
        basis
          ? `Estimates are guesses: every run is assumed to take ${duration(basis.medianSeconds)} (the median of this queue's last ${basis.runs} finished run(s)) and to pass, ${q.settings.concurrency} at a time.`
          : 'No estimate yet: no run of this queue has finished.'
      }
    </p>`;
};

const outcomesTable = (d: QueuePageData): SafeHtml => {
  const q = d.view;
  const runs = new Map(d.runTimes.map((r) => [r.testRunId, r]));
  if (d.outcomes.length === 0)
    return html`<p class="muted">No PR merged, failed or was cancelled in the last ${d.outcomesWindowHours} h.</p>`;
  return html`<div class="scroll">
    <table class="stack">
      ${tableHead('PR', 'Outcome', 'Why', 'Ended', 'In queue', 'Last run')}
      <tbody>
        ${d.outcomes.map(({ pr, explanation }) => {
          const run = pr.lastTestRunId ? runs.get(pr.lastTestRunId) : undefined;
          return html`<tr data-pr="${pr.prNumber}" data-state="${pr.state}">
            <td data-label="PR"><a href="${prPath(q.queueId, pr.prNumber)}">#${pr.prNumber}</a> ${pr.prTitle}</td>
            <td data-label="Outcome">${stateBadge(pr.state)}</td>
            <td data-label="Why" class="reason" data-code="${explanation.stateReason.code}">${prose(explanation.stateReason.message)}</td>
            <td data-label="Ended">${clock(pr.stateChangedAt, d.now)}</td>
            <td data-label="In queue">${span(pr.submittedAt, pr.stateChangedAt)}</td>
            <td data-label="Last run">
              ${
                run
                  ? html`<a href="${runPath(q.queueId, run.testRunId)}">${shortId(run.testRunId)}</a>
                      ${run.endedAt ? html`took ${span(run.startedAt, run.endedAt)}, ended ${clock(run.endedAt, d.now)}` : html`running`}`
                  : html`<span class="muted">not tested</span>`
              }
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
};

export const queueBody = (d: QueuePageData, session: Session, csrf: string): SafeHtml => {
  const q = d.view;
  const csrfOk = session.scope === 'admin';
  const finished = d.runTimes.filter((r) => r.endedAt !== undefined && r.outcome !== 'cancelled').slice(-12);
  return html`${hostProblem(q, d.now)}
    <p>
      ${stateBadge(q.state, QUEUE_STATE_WORDS)}${q.hostProblem ? html` <span class="error">but blocked by the problem above</span>` : ''} ·
      ${q.settings.mode} mode · ${q.settings.concurrency} run(s) at a time${q.settings.batch ? ' · batching' : ''} · required checks:
      ${
        q.requiredStatuses.length > 0
          ? q.requiredStatuses.join(', ')
          : html`from ${plain(REQUIRED_STATUSES_SOURCE_WORDS, 'trunk_config', 'words')} or the code host`
      }
      · <a href="${historyPath(q.queueId)}">history</a>
    </p>
    ${csrfOk ? stateForms(q, csrf) : ''} ${csrfOk ? queueSettingsForm(q, csrf) : ''}
    <h2>Testing now</h2>
    ${runGraph(
      d.runs.map((r) => ({
        testRunId: r.testRunId,
        prNumbers: r.testedPrs.map((p) => p.prNumber),
        dependentPrs: r.dependentPrs.map((p) => p.prNumber),
        status: r.status,
        bisection: r.bisection,
      })),
    )}
    ${d.runs.map((r) => runInFlight(q, r, d.now))}
    <h2>In the queue (${d.prs.length})</h2>
    ${
      d.prs.length === 0
        ? html`<p class="muted">
            ${q.hostProblem ? 'No PR is queued; none could be tested until the problem above is fixed.' : 'No PR is waiting or testing.'}
          </p>`
        : waitingTable(d)
    }
    <h2>Recent outcomes (last ${d.outcomesWindowHours} h)</h2>
    ${outcomesTable(d)}
    <h2>Run times</h2>
    ${durationChart(
      'Length of the last finished runs',
      finished.map((r) => ({
        label: r.testRunId.slice(0, 8),
        seconds: (Date.parse(r.endedAt as string) - Date.parse(r.startedAt)) / 1000,
      })),
    )}`;
};
