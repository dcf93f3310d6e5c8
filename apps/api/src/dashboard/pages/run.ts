import type { TestRunView } from '@railyard/readmodels';
import { html, type SafeHtml } from '../html';
import { stateBadge } from '../layout';
import { prPath, queuePath } from '../links';
import { checksTable } from './pr';
import { REASON_WORDS, REQUIRED_STATUSES_SOURCE_WORDS } from '@railyard/domain';
import { clock, plain, shortId, span } from '../format';

export const runBody = (r: TestRunView, now: number): SafeHtml =>
  html`<p><a href="${queuePath(r.queueId)}">← queue</a></p>
    <dl>
      <dt>Status</dt>
      <dd>
        ${stateBadge(r.outcome?.kind ?? r.status)}${r.outcome?.reason ? html` <span class="muted">${plain(REASON_WORDS, r.outcome.reason)}</span>` : ''}
      </dd>
      <dt>Test branch</dt>
      <dd><code>${r.testBranch}</code> at ${shortId(r.testBranchSha, 12)}</dd>
      <dt>Base</dt>
      <dd>${shortId(r.baseSha, 12)}</dd>
      <dt>Tests</dt>
      <dd>${r.testedPrs.map((p) => html`<a href="${prPath(r.queueId, p.prNumber)}">#${p.prNumber}</a> ${p.title} `)}</dd>
      <dt>Stacked on</dt>
      <dd>
        ${r.dependentPrs.length === 0 ? 'the target branch' : r.dependentPrs.map((p) => html`<a href="${prPath(r.queueId, p.prNumber)}">#${p.prNumber}</a> `)}
      </dd>
      <dt>Required</dt>
      <dd>
        ${r.requiredStatuses.join(', ') || '—'}
        <span class="muted">(from ${plain(REQUIRED_STATUSES_SOURCE_WORDS, r.requiredStatusesSource)})</span>
      </dd>
      <dt>Started</dt>
      <dd>${clock(r.createdAt, now)}</dd>
      <dt>Ended</dt>
      <dd>
        ${r.outcome ? html`${clock(r.outcome.at, now)}, after ${span(r.createdAt, r.outcome.at)}` : html`not yet: running for ${span(r.createdAt, now)}`}
      </dd>
      <dt>Bisection</dt>
      <dd>${r.bisection ? 'yes' : 'no'}</dd>
    </dl>
    <h2>Checks</h2>
    ${checksTable(r, now)}`;
