import { CHECK_STATE_WORDS, eventWords, isTerminal, REASON_WORDS, waitingWords, type Explanation } from '@railyard/domain';
import { clock, plain, prose, shortId, span } from '../format';
import type { PrView, TestRunView } from '@railyard/readmodels';
import type { HistoryEntry } from '@railyard/readmodels';
import { html, type SafeHtml } from '../html';
import { csrfField, stateBadge, tableHead } from '../layout';
import { prPath, queuePath, runPath } from '../links';
import type { Session } from '../session';

export interface PrPageData {
  view: PrView;
  explanation: Explanation;
  timeline: HistoryEntry[];
  runs: TestRunView[];
}

const RESTARTABLE = ['testing', 'tests_passed', 'pending_failure'];

const writerForms = (v: PrView, csrf: string): SafeHtml =>
  isTerminal(v.state)
    ? html``
    : html`<p>
      <form class="inline" method="post" action="${prPath(v.queueId, v.prNumber)}/cancel">${csrfField(csrf)}<button>Cancel</button></form>
      ${RESTARTABLE.includes(v.state) ? html`<form class="inline" method="post" action="${prPath(v.queueId, v.prNumber)}/restart">${csrfField(csrf)}<button>Restart tests</button></form>` : ''}
    </p>`;

/**
 * A run's checks with log links (they work in the browser because the session is accepted there):
 * each required or reported check, its state in words, how long it took from the run's start and when
 * it finished. A check of a run that ended without it is "did not finish", never "running".
 */
export const checksTable = (run: TestRunView, now: number): SafeHtml => {
  const reported = new Map(run.statuses.map((s) => [s.context, s]));
  const names = [...new Set([...run.requiredStatuses, ...run.statuses.map((s) => s.context)])];
  if (names.length === 0) return html`<p class="muted">No check named or reported yet.</p>`;
  const ended = run.status !== 'in_progress';
  return html`<div class="scroll">
    <table class="stack">
      ${tableHead('Check', 'State', 'Took', 'Finished', 'Log')}
      <tbody>
        ${names.map((name) => {
          const s = reported.get(name);
          const done = s !== undefined && s.state !== 'pending';
          return html`<tr data-check="${name}">
            <td data-label="Check">
              ${name}${run.requiredStatuses.includes(name) ? '' : html` <span class="muted">(not required)</span>`}
            </td>
            <td data-label="State">
              ${
                done
                  ? plain(CHECK_STATE_WORDS, s.state, `state state-${s.state}`)
                  : ended
                    ? html`<span class="muted">did not finish (the run ${run.status === 'cancelled' ? 'was cancelled' : 'ended'})</span>`
                    : s
                      ? plain(CHECK_STATE_WORDS, 'pending')
                      : html`<span class="muted">not started</span>`
              }
            </td>
            <td data-label="Took">${done ? span(run.createdAt, s.at) : ended ? '—' : html`${span(run.createdAt, now)} so far`}</td>
            <td data-label="Finished">${done ? clock(s.at, now) : '—'}</td>
            <td data-label="Log">${s?.url ? html`<a href="${s.url}">log of ${name}</a>` : '—'}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
};

const eventLine = (e: HistoryEntry, now: number): SafeHtml => {
  const data = e.data as {
    testRunId?: unknown;
    detail?: unknown;
    failedContexts?: unknown;
    context?: unknown;
    state?: unknown;
    to?: unknown;
  };
  const extra: SafeHtml[] = [
    typeof data.context === 'string' && typeof data.state === 'string'
      ? html`check ${data.context}: ${plain(CHECK_STATE_WORDS, data.state)}`
      : html``,
    Array.isArray(data.failedContexts) && data.failedContexts.length > 0 ? html`failed checks: ${data.failedContexts.join(', ')}` : html``,
    typeof data.detail === 'string' ? prose(data.detail) : html``,
    typeof data.testRunId === 'string' ? html`run ${shortId(data.testRunId)}` : html``,
  ].filter((x) => x.value !== '');
  return html`<tr>
    <td data-label="Time">${clock(e.time, now)}</td>
    <td data-label="Event"><span title="${e.type}" data-code="${e.type}">${eventWords(e.type)}</span></td>
    <td data-label="By">${e.actor}</td>
    <td data-label="Reason">${e.reason ? plain(REASON_WORDS, e.reason) : ''}</td>
    <td data-label="Details">${extra.map((x, i) => html`${i > 0 ? ' · ' : ''}${x}`)}</td>
  </tr>`;
};

export const prBody = (d: PrPageData, session: Session, csrf: string, now: number): SafeHtml => {
  const v = d.view;
  const x = d.explanation;
  return html`<p>
      <a href="${queuePath(v.queueId)}">← queue</a> · ${v.prTitle} by ${v.prAuthor} · head ${shortId(v.prSha, 12)} into ${v.prBaseBranch} ·
      in the queue ${isTerminal(v.state) ? `for ${span(v.submittedAt, v.stateChangedAt)}` : `for ${span(v.submittedAt, now)} so far`}
    </p>
    <h2>State: ${stateBadge(v.state)} <span class="muted">since ${clock(v.stateChangedAt, now)}</span></h2>
    <p id="reason" data-code="${x.stateReason.code}" title="${x.stateReason.code}">${prose(x.stateReason.message)}</p>
    ${
      x.waitingOn.length > 0
        ? html`<h3>Waiting on</h3>
            <ul>
              ${x.waitingOn.map((w) => html`<li data-kind="${w.kind}">${prose(waitingWords(w))}</li>`)}
            </ul>`
        : ''
    }
    ${session.scope !== 'read' ? writerForms(v, csrf) : ''}
    <h2>Test runs</h2>
    ${
      d.runs.length === 0
        ? html`<p class="muted">Not tested yet.</p>`
        : d.runs.map(
            (r) =>
              html`<h3>
                  <a href="${runPath(v.queueId, r.testRunId)}">Run ${shortId(r.testRunId)}</a> ${stateBadge(r.status)}
                  <span class="muted"
                    >started
                    ${clock(r.createdAt, now)}${r.outcome ? html`, ended ${clock(r.outcome.at, now)} after ${span(r.createdAt, r.outcome.at)}` : html`, running for ${span(r.createdAt, now)}`}</span
                  >
                </h3>
                ${checksTable(r, now)}`,
          )
    }
    <h2>Timeline</h2>
    <div class="scroll">
      <table class="stack">
        ${tableHead('Time', 'Event', 'By', 'Reason', 'Details')}
        <tbody>
          ${d.timeline.map((e) => eventLine(e, now))}
        </tbody>
      </table>
    </div>`;
};
