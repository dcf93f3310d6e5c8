import type { TestDoc } from '@railyard/readmodels';
import { mostCommonFailures, quarantineSettingOf, repositoryHtmlUrl, testHtmlUrl, type Codeowners } from '@railyard/testhealth';

export const unhealthyTestView = (doc: TestDoc, owners: Codeowners, base: string) => ({
  id: doc.id,
  repository: { html_url: repositoryHtmlUrl(doc.repo, base) },
  html_url: testHtmlUrl(doc.repo, doc.id, base),
  name: doc.name,
  variant: doc.variant,
  status: { value: doc.status.toLowerCase(), reason: doc.reason, timestamp: doc.since },
  codeowners: owners.ownersOf(doc.file),
  pull_requests_impacted_last_7d: doc.pullRequestsImpactedLast7d,
  quarantined: doc.quarantined,
  file_path: doc.file,
  parent: doc.parent,
  classname: doc.classname,
  ...(doc.ticketUrl ? { ticket: { html_url: doc.ticketUrl } } : {}),
});

/** How often a test failed lately, from its run history (libs/testhealth's rates). */
export interface FailureRates {
  last7d: number;
  last24h: number;
}

/** A test as list-failing-tests shows it, with its failure messages grouped by first line. */
export const failingTestView = (doc: TestDoc, owners: Codeowners, base: string, rates: FailureRates) => ({
  ...unhealthyTestView(doc, owners, base),
  most_common_failures: mostCommonFailures(doc.failures),
  failure_rate_last_7d: rates.last7d,
  failure_rate_last_24h: rates.last24h,
});

export const quarantinedTestView = (doc: TestDoc, owners: Codeowners) => ({
  name: doc.name,
  parent: doc.parent,
  file: doc.file,
  classname: doc.classname,
  status: doc.status,
  codeowners: owners.ownersOf(doc.file),
  quarantine_setting: quarantineSettingOf(doc.override ?? undefined),
  quarantined_at: doc.quarantinedAt ?? '',
  status_last_updated_at: doc.statusUpdatedAt,
  test_case_id: doc.id,
  variant: doc.variant,
});

/** Everything known about one test, for get-test-details and the CLI. */
export const testDetailsView = (doc: TestDoc, owners: Codeowners, base: string, rates: FailureRates) => ({
  ...failingTestView(doc, owners, base, rates),
  status: { value: doc.status.toLowerCase(), reason: doc.reason, timestamp: doc.since, monitors: doc.monitors },
  quarantine_setting: doc.override === 'always' ? 'ALWAYS_QUARANTINE' : doc.override === 'never' ? 'NEVER_QUARANTINE' : 'AUTO_QUARANTINE',
  quarantined_at: doc.quarantinedAt,
  status_last_updated_at: doc.statusUpdatedAt,
  first_seen_at: doc.firstSeenAt,
  last_seen_at: doc.lastSeenAt,
  last_failed_at: doc.lastFailedAt,
});
