import type { TestDoc } from '@railyard/readmodels';
import { mostCommonFailures, type TestRun } from '@railyard/testhealth';
import { clock, shortId } from '../format';
import { html, type SafeHtml } from '../html';
import { stateBadge, tableHead } from '../layout';

export interface TestPageData {
  doc: TestDoc;
  rates: { last7d: number; last24h: number };
  /** The test's runs, oldest first (the read model's history); the page shows the newest. */
  runs: readonly TestRun[];
  now: number;
}

/** Runs shown: enough to see a pattern, few enough to read. */
export const RUNS_SHOWN = 20;

const percent = (share: number): string => `${Math.round(share * 1000) / 10} %`;
const quarantineWords = (d: TestDoc): string =>
  d.override === 'always'
    ? 'always (set by hand)'
    : d.override === 'never'
      ? 'never (set by hand)'
      : d.quarantined
        ? 'yes, automatically'
        : 'no';

/**
 * One test: what test health knows of it, its commonest failures and its latest runs (html_url of
 * Trunk's test APIs). A ticket linked without RAILYARD_TICKET_URL is a `urn:x-ticket:` name: shown, not linked.
 */
export const testBody = (d: TestPageData): SafeHtml => {
  const t = d.doc;
  const failures = mostCommonFailures(t.failures);
  const runs = d.runs.slice(-RUNS_SHOWN).reverse();
  return html`<p><a href="/tests?${new URLSearchParams({ repo: t.repoId }).toString()}">← tests</a></p>
    <dl>
      <dt>Status</dt>
      <dd>${stateBadge(t.status.toLowerCase())} <span class="muted">${t.reason}</span>, since ${clock(t.since, d.now)}</dd>
      <dt>File</dt>
      <dd><code>${t.file || '—'}</code>${t.classname ? html` <span class="muted">class ${t.classname}</span>` : ''}</dd>
      ${
        t.variant
          ? html`<dt>Variant</dt>
              <dd>${t.variant}</dd>`
          : ''
      }
      <dt>Quarantined</dt>
      <dd>${quarantineWords(t)}${t.quarantinedAt ? html`, since ${clock(t.quarantinedAt, d.now)}` : ''}</dd>
      <dt>Failure rate</dt>
      <dd>${percent(d.rates.last7d)} of its runs in 7 days, ${percent(d.rates.last24h)} in 24 hours</dd>
      <dt>PRs impacted (7 d)</dt>
      <dd>${t.pullRequestsImpactedLast7d}</dd>
      <dt>Seen</dt>
      <dd>
        first ${clock(t.firstSeenAt, d.now)}, last
        ${clock(t.lastSeenAt, d.now)}${t.lastFailedAt ? html`, last failed ${clock(t.lastFailedAt, d.now)}` : ''}
      </dd>
      ${
        t.ticketUrl
          ? html`<dt>Ticket</dt>
              <dd>${/^https?:\/\//i.test(t.ticketUrl) ? html`<a href="${t.ticketUrl}">${t.ticketUrl}</a>` : t.ticketUrl}</dd>`
          : ''
      }
    </dl>
    ${
      t.monitors.length > 0
        ? html`<h2>Monitors</h2>
            <ul>
              ${t.monitors.map((m) => html`<li>${m.monitor}: ${m.reason} <span class="muted">since ${clock(m.since, d.now)}</span></li>`)}
            </ul>`
        : ''
    }
    <h2>Commonest failures</h2>
    ${
      failures.length === 0
        ? html`<p class="muted">No failure recorded.</p>`
        : html`<table class="stack">
            ${tableHead('Message (first line)', 'Times', 'Last')}
            <tbody>
              ${failures.map(
                (f) =>
                  html`<tr>
                    <td><code>${f.summary}</code></td>
                    <td>${f.occurrence_count}</td>
                    <td>${clock(f.last_occurrence, d.now)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>Latest runs</h2>
    ${
      runs.length === 0
        ? html`<p class="muted">No run kept.</p>`
        : html`<table class="stack">
            ${tableHead('When', 'Outcome', 'Branch', 'PR', 'Commit', 'Job')}
            <tbody>
              ${runs.map(
                (r) =>
                  html`<tr>
                    <td data-label="When">${clock(r.at, d.now)}</td>
                    <td data-label="Outcome">
                      ${stateBadge(r.outcome === 'passed' ? 'succeeded' : r.outcome === 'flaky' ? 'flaky' : 'failed')}
                    </td>
                    <td data-label="Branch"><code>${r.branch}</code></td>
                    <td data-label="PR">${r.prNumber !== undefined ? `#${r.prNumber}` : '—'}</td>
                    <td data-label="Commit">${shortId(r.commitSha, 12)}</td>
                    <td data-label="Job">${r.ciJob ?? '—'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
};
