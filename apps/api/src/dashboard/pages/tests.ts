import type { TestDoc } from '@railyard/readmodels';
import { testHtmlUrl, type PageInfo } from '@railyard/testhealth';
import { html, type SafeHtml } from '../html';
import { stateBadge } from '../layout';

export const TEST_LISTS = ['flaky', 'broken', 'quarantined'] as const;
export type TestList = (typeof TEST_LISTS)[number];

export interface TestsPageData {
  repos: { id: string; label: string }[];
  repoId?: string;
  list: TestList;
  rows: TestDoc[];
  page?: PageInfo;
}

const link = (d: TestsPageData, extra: Record<string, string>): string =>
  `/tests?${new URLSearchParams({ ...(d.repoId ? { repo: d.repoId } : {}), list: d.list, ...extra }).toString()}`;

export const testsBody = (d: TestsPageData): SafeHtml =>
  html` <form method="get" action="/tests">
      <label
        >Repository
        <select name="repo">
          ${d.repos.map((r) => html`<option value="${r.id}" ${r.id === d.repoId ? 'selected' : ''}>${r.label}</option>`)}
        </select></label
      >
      <label
        >List
        <select name="list">
          ${(['flaky', 'broken', 'quarantined'] as const).map((l) => html`<option value="${l}" ${l === d.list ? 'selected' : ''}>${l}</option>`)}
        </select></label
      >
      <button>Show</button>
    </form>
    ${
      d.repos.length === 0
        ? html`<p class="muted">No test report has been uploaded yet.</p>`
        : d.rows.length === 0
          ? html`<p class="muted">No ${d.list} test.</p>`
          : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">File</th>
                  <th scope="col">Status</th>
                  <th scope="col">Since</th>
                  <th scope="col">Quarantined</th>
                  <th scope="col">PRs impacted (7 d)</th>
                </tr>
              </thead>
              <tbody>
                ${d.rows.map(
                  (t) =>
                    html`<tr>
                      <td data-label="Test">
                        <a href="${testHtmlUrl(t.repo, t.id, '')}">${t.classname ? `${t.classname} › ` : ''}${t.name}</a>
                      </td>
                      <td data-label="File">${t.file}</td>
                      <td data-label="Status">${stateBadge(t.status.toLowerCase())}</td>
                      <td data-label="Since">${t.since}</td>
                      <td data-label="Quarantined">${t.quarantined ? 'yes' : 'no'}</td>
                      <td data-label="PRs impacted (7 d)">${t.pullRequestsImpactedLast7d}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
    ${
      // One page says nothing worth a "Page 1 of 1" (nor, with no rows, "Page 1 of 0").
      d.page && d.page.total_pages > 1
        ? html`<nav aria-label="pages">
            <p>
              Page ${d.page.page_index} of ${d.page.total_pages} (${d.page.total_rows} tests)
              ${d.page.prev_page_token ? html`<a href="${link(d, { page_token: d.page.prev_page_token })}">previous</a>` : ''}
              ${d.page.next_page_token ? html`<a href="${link(d, { page_token: d.page.next_page_token })}">next</a>` : ''}
            </p>
          </nav>`
        : ''
    }`;
