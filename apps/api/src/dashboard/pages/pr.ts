import { isTerminal, type Explanation } from '@railyard/domain';
import type { PrView, TestRunView } from '@railyard/readmodels';
import type { HistoryEntry } from '@railyard/readmodels';
import { html, type SafeHtml } from '../html';
import { csrfField, stateBadge } from '../layout';
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

/** A check list with log links: the links work in the browser because the session is accepted there. */
export const checksTable = (run: TestRunView): SafeHtml =>
  run.statuses.length === 0
    ? html`<p class="muted">No check reported yet.</p>`
    : html`<table>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">State</th>
            <th scope="col">Log</th>
          </tr>
        </thead>
        <tbody>
          ${run.statuses.map(
            (s) =>
              html`<tr>
                <td>${s.context}${run.requiredStatuses.includes(s.context) ? '' : html` <span class="muted">(not required)</span>`}</td>
                <td>${stateBadge(s.state === 'failure' || s.state === 'error' ? 'failed' : s.state)}</td>
                <td>${s.url ? html`<a href="${s.url}">log of ${s.context}</a>` : '—'}</td>
              </tr>`,
          )}
        </tbody>
      </table>`;

const eventLine = (e: HistoryEntry): SafeHtml => {
  const data = e.data as { testRunId?: unknown; detail?: unknown; failedContexts?: unknown };
  const extra = [
    typeof data.testRunId === 'string' ? `run ${data.testRunId}` : '',
    typeof data.detail === 'string' ? data.detail : '',
    Array.isArray(data.failedContexts) && data.failedContexts.length > 0 ? `failed: ${data.failedContexts.join(', ')}` : '',
  ].filter(Boolean);
  return html`<tr>
    <td><time datetime="${e.time}">${e.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time></td>
    <td>${e.type}</td>
    <td>${e.actor}</td>
    <td>${e.reason ?? ''}</td>
    <td>${extra.join(' · ')}</td>
  </tr>`;
};

export const prBody = (d: PrPageData, session: Session, csrf: string): SafeHtml => {
  const v = d.view;
  const x = d.explanation;
  return html`<p>
      <a href="${queuePath(v.queueId)}">← queue</a> · ${v.prTitle} by ${v.prAuthor} · head <code>${v.prSha.slice(0, 12)}</code> into
      ${v.prBaseBranch}
    </p>
    <h2>State: ${stateBadge(v.state)}</h2>
    <p id="reason">${x.stateReason.message} <span class="muted">[${x.stateReason.code}]</span></p>
    ${
      x.waitingOn.length > 0
        ? html`<h3>Waiting on</h3>
            <ul>
              ${x.waitingOn.map((w) => html`<li>${w.message}</li>`)}
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
                  <a href="${runPath(v.queueId, r.testRunId)}">Run ${r.testRunId}</a> ${stateBadge(r.status)}
                  <span class="muted">${r.testBranch}</span>
                </h3>
                ${checksTable(r)}`,
          )
    }
    <h2>Timeline</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Actor</th>
          <th scope="col">Reason</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        ${d.timeline.map(eventLine)}
      </tbody>
    </table>`;
};
