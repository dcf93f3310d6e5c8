import type { Explanation } from '@railyard/domain';
import type { PrView, QueueView, TestRunView } from '@railyard/readmodels';
import { runGraph } from '../charts';
import { html, type SafeHtml } from '../html';
import { csrfField, stateBadge } from '../layout';
import { historyPath, prPath, queuePath, runPath } from '../links';
import type { Session } from '../session';

export interface QueuePageData {
  view: QueueView;
  prs: PrView[];
  explanations: Explanation[];
  runs: TestRunView[];
}

const adminForms = (q: QueueView, csrf: string): SafeHtml => {
  const action = (state: string, label: string) =>
    q.state === state
      ? ''
      : html`<form class="inline" method="post" action="${queuePath(q.queueId)}/state">
          ${csrfField(csrf)}<input type="hidden" name="state" value="${state}" /><button>${label}</button>
        </form>`;
  return html`<p>${action('paused', 'Pause')} ${action('running', 'Resume')} ${action('draining', 'Drain')}</p>`;
};

export const queueBody = (d: QueuePageData, session: Session, csrf: string): SafeHtml => {
  const q = d.view;
  return html`<p>
      ${stateBadge(q.state)} · ${q.settings.mode} mode · concurrency ${q.settings.concurrency}${q.settings.batch ? ' · batching' : ''} ·
      required statuses: ${q.requiredStatuses.length > 0 ? q.requiredStatuses.join(', ') : 'from the repository config'} ·
      <a href="${historyPath(q.queueId)}">history</a>
    </p>
    ${session.scope === 'admin' ? adminForms(q, csrf) : ''}
    <h2>Test runs in flight</h2>
    ${runGraph(
      d.runs.map((r) => ({
        testRunId: r.testRunId,
        prNumbers: r.testedPrs.map((p) => p.prNumber),
        dependentPrs: r.dependentPrs.map((p) => p.prNumber),
        status: r.status,
        bisection: r.bisection,
      })),
    )}
    ${d.runs.length > 0 ? html`<p>${d.runs.map((r) => html`<a href="${runPath(q.queueId, r.testRunId)}">run ${r.testRunId}</a> `)}</p>` : ''}
    <h2>Pull requests (${d.prs.length})</h2>
    ${
      d.prs.length === 0
        ? html`<p class="muted">The queue is empty.</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Pos</th>
                <th scope="col">PR</th>
                <th scope="col">State</th>
                <th scope="col">Priority</th>
                <th scope="col">Author</th>
                <th scope="col">Waiting on</th>
              </tr>
            </thead>
            <tbody>
              ${d.prs.map((p, i) => {
                const x = d.explanations[i];
                return html`<tr>
                  <td>${i + 1}</td>
                  <td><a href="${prPath(q.queueId, p.prNumber)}">#${p.prNumber}</a> ${p.prTitle}</td>
                  <td>${stateBadge(p.state)}</td>
                  <td>${p.priorityName} (${p.priorityValue})</td>
                  <td>${p.prAuthor}</td>
                  <td>${(x?.waitingOn ?? []).map((w) => w.message).join('; ')}</td>
                </tr>`;
              })}
            </tbody>
          </table>`
    }`;
};
