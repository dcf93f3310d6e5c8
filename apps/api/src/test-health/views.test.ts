import { newTestDoc } from '@railyard/readmodels';
import { parseCodeowners } from '@railyard/testhealth';
import { failingTestView, quarantinedTestView, unhealthyTestView } from './views';

const LOCAL = { host: 'git.local', owner: 'acme', name: 'widgets' };
const BASE = 'http://railyard.test:8080';
const doc = {
  ...newTestDoc(
    {
      repo: LOCAL,
      repoId: 'r',
      id: '3f507aef-e834-523b-a8ad-edaba6b137be',
      name: 'adds',
      classname: 'Cart',
      file: 'src/cart/a.test.ts',
      parent: 'cart',
      variant: 'linux',
    },
    '2026-03-01T09:00:00.000Z',
  ),
  status: 'FLAKY' as const,
  reason: 'pass_on_retry: failed and passed on commit abc1234',
  since: '2026-03-02T09:00:00.000Z',
  statusUpdatedAt: '2026-03-02T09:05:00.000Z',
  pullRequestsImpactedLast7d: 3,
  quarantined: true,
  quarantinedAt: '2026-03-02T09:05:00.000Z',
};
const owners = parseCodeowners('src/cart/ @acme/cart\n');

describe('test-health views', () => {
  it('when an unhealthy test without a ticket is shown, then every spec field is there with the status lowercase and no ticket', () => {
    expect(unhealthyTestView(doc, owners, BASE)).toEqual({
      id: doc.id,
      repository: { html_url: `${BASE}/repos/git.local/acme/widgets` },
      html_url: `${BASE}/repos/git.local/acme/widgets/tests/${doc.id}`,
      name: 'adds',
      variant: 'linux',
      status: { value: 'flaky', reason: doc.reason, timestamp: doc.since },
      codeowners: ['@acme/cart'],
      pull_requests_impacted_last_7d: 3,
      quarantined: true,
      file_path: 'src/cart/a.test.ts',
      parent: 'cart',
      classname: 'Cart',
    });
    expect(unhealthyTestView({ ...doc, ticketUrl: 'https://tracker.test/T-1' }, owners, BASE).ticket).toEqual({
      html_url: 'https://tracker.test/T-1',
    });
  });

  it('when a quarantined test is shown, then every spec field is there with the status uppercase and the setting', () => {
    expect(quarantinedTestView({ ...doc, override: 'always' }, owners)).toEqual({
      name: 'adds',
      parent: 'cart',
      file: 'src/cart/a.test.ts',
      classname: 'Cart',
      status: 'FLAKY',
      codeowners: ['@acme/cart'],
      quarantine_setting: 'ALWAYS_QUARANTINE',
      quarantined_at: doc.quarantinedAt,
      status_last_updated_at: doc.statusUpdatedAt,
      test_case_id: doc.id,
      variant: 'linux',
    });
  });

  it('when a failing test is shown, then it has the unhealthy fields, its failure rates and its commonest failures', () => {
    const failures = [{ summary: 'expected 2, got 3', count: 4, last: '2026-03-02T09:00:00.000Z' }];
    expect(failingTestView({ ...doc, failures }, owners, BASE, { last7d: 0.25, last24h: 0.5 })).toEqual({
      ...unhealthyTestView(doc, owners, BASE),
      most_common_failures: [{ summary: 'expected 2, got 3', occurrence_count: 4, last_occurrence: '2026-03-02T09:00:00.000Z' }],
      failure_rate_last_7d: 0.25,
      failure_rate_last_24h: 0.5,
    });
  });

  it('when a document was folded before failures were counted, then it shows none', () => {
    const { failures: _dropped, ...older } = doc;
    expect(failingTestView(older, owners, BASE, { last7d: 0, last24h: 0 }).most_common_failures).toEqual([]);
  });
});
