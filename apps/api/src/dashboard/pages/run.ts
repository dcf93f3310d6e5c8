import type { TestRunView } from '@railyard/readmodels';
import { html, type SafeHtml } from '../html';
import { stateBadge } from '../layout';
import { prPath, queuePath } from '../links';
import { checksTable } from './pr';

export const runBody = (r: TestRunView): SafeHtml =>
  html`<p><a href="${queuePath(r.queueId)}">← queue</a></p>
    <dl>
      <dt>Status</dt>
      <dd>${stateBadge(r.status)}${r.outcome?.reason ? html` <span class="muted">${r.outcome.reason}</span>` : ''}</dd>
      <dt>Test branch</dt>
      <dd><code>${r.testBranch}</code> at <code>${r.testBranchSha.slice(0, 12)}</code></dd>
      <dt>Base</dt>
      <dd><code>${r.baseSha.slice(0, 12)}</code></dd>
      <dt>Tests</dt>
      <dd>${r.testedPrs.map((p) => html`<a href="${prPath(r.queueId, p.prNumber)}">#${p.prNumber}</a> ${p.title} `)}</dd>
      <dt>Stacked on</dt>
      <dd>
        ${r.dependentPrs.length === 0 ? 'the target branch' : r.dependentPrs.map((p) => html`<a href="${prPath(r.queueId, p.prNumber)}">#${p.prNumber}</a> `)}
      </dd>
      <dt>Required</dt>
      <dd>${r.requiredStatuses.join(', ') || '—'} <span class="muted">(${r.requiredStatusesSource})</span></dd>
      <dt>Started</dt>
      <dd>${r.createdAt}</dd>
      <dt>Bisection</dt>
      <dd>${r.bisection ? 'yes' : 'no'}</dd>
    </dl>
    <h2>Checks</h2>
    ${checksTable(r)}`;
