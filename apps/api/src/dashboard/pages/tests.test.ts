import type { PageInfo } from '@railyard/testhealth';
import { testsBody } from './tests';

const page = (total_rows: number, total_pages: number): PageInfo => ({
  total_rows,
  total_pages,
  page_index: 1,
  next_page_token: total_pages > 1 ? 'next' : '',
  prev_page_token: '',
  last_page_token: '',
});

describe('the flaky tests page', () => {
  it('when the list is empty or fits one page, then there is no page line (no "Page 1 of 0"); with more pages, there is', () => {
    const repos = [{ id: 'r', label: 'git.local/acme/widgets' }];
    expect(testsBody({ repos, repoId: 'r', list: 'flaky', rows: [], page: page(0, 0) }).value).not.toMatch(/Page \d+ of/);
    expect(testsBody({ repos, repoId: 'r', list: 'flaky', rows: [], page: page(3, 1) }).value).not.toMatch(/Page \d+ of/);
    expect(testsBody({ repos, repoId: 'r', list: 'flaky', rows: [], page: page(30, 2) }).value).toMatch(/Page 1 of 2/);
  });
});
