import { z } from 'zod';
import { repoSchema } from './common';

/** What the test-result upload and the flaky-tests endpoints answer. */

const time = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const status = z.enum(['HEALTHY', 'FLAKY', 'BROKEN']);
const codeowners = z.array(z.string());

export const pageInfoSchema = z.object({
  total_rows: z.number().int().min(0),
  total_pages: z.number().int().min(0),
  next_page_token: z.string().describe('empty on the last page'),
  prev_page_token: z.string(),
  last_page_token: z.string(),
  page_index: z.number().int().min(1),
});

export const uploadSummarySchema = z.object({
  uploadId: z.string(),
  repo: repoSchema,
  branch: z.string(),
  commitSha: z.string(),
  files: z.number().int().min(0),
  caseCount: z.number().int().min(0),
  testCount: z.number().int().min(0),
  failedCount: z.number().int().min(0),
  warnings: z.array(z.object({ code: z.enum(['FIELD_TRUNCATED', 'NO_TEST_CASES', 'MISSING_FILE', 'SUITE_FAILURE']), message: z.string() })),
  suiteFailures: z.array(z.object({ parent: z.string(), kind: z.enum(['failure', 'error']), message: z.string() })),
  evaluated: z.number().int().min(0).describe('tests re-classified after the upload'),
  statusChanges: z.number().int().min(0),
});

const statusValue = z.object({
  value: z.enum(['healthy', 'flaky', 'broken']),
  reason: z.string(),
  timestamp: time,
});

export const unhealthyTestSchema = z.object({
  id: z.string(),
  repository: z.object({ html_url: z.string() }),
  html_url: z.string(),
  name: z.string(),
  variant: z.string(),
  status: statusValue,
  codeowners,
  pull_requests_impacted_last_7d: z.number().int().min(0),
  quarantined: z.boolean(),
  file_path: z.string(),
  parent: z.string(),
  classname: z.string(),
  ticket: z.object({ html_url: z.url() }).optional().describe('absent when no ticket is linked'),
});

/** A test as list-failing-tests and get-test-details show it: the unhealthy test's fields and its failures. */
export const failingTestSchema = unhealthyTestSchema.extend({
  most_common_failures: z
    .array(z.object({ summary: z.string(), occurrence_count: z.number().int().min(0), last_occurrence: time.optional() }))
    .describe('failure messages grouped by their first line, the commonest first (at most 5); counted since the test was first seen'),
  failure_rate_last_7d: z.number().min(0).max(1).describe('share of the runs of the last 7 days that ended failed'),
  failure_rate_last_24h: z.number().min(0).max(1).describe('the same over the last 24 hours'),
});

export const listFailingResponseSchema = z.object({ tests: z.array(failingTestSchema), page: pageInfoSchema });

export const createCiRunResponseSchema = z.object({ run_id: z.string().describe('the same for the same run reported again') });

export const listUnhealthyResponseSchema = z.object({ tests: z.array(unhealthyTestSchema), page: pageInfoSchema });

export const quarantinedTestSchema = z.object({
  name: z.string(),
  parent: z.string(),
  file: z.string(),
  classname: z.string(),
  status,
  codeowners,
  quarantine_setting: z.enum(['ALWAYS_QUARANTINE', 'AUTO_QUARANTINE']),
  quarantined_at: z.string().describe('ISO 8601 time; empty when not quarantined'),
  status_last_updated_at: time,
  test_case_id: z.string(),
  variant: z.string(),
});

export const listQuarantinedResponseSchema = z.object({ quarantined_tests: z.array(quarantinedTestSchema), page: pageInfoSchema });

export const setQuarantineResponseSchema = z.object({
  testId: z.string(),
  quarantine: z.enum(['always', 'never', 'auto']),
  quarantined: z.boolean(),
  quarantined_at: time.nullable(),
  status,
});

const checkedTest = z.object({
  testId: z.string(),
  known: z.boolean(),
  name: z.string().optional(),
  classname: z.string().optional(),
  file: z.string().optional(),
  parent: z.string().optional(),
  variant: z.string().optional(),
  status: status.optional(),
});

export const checkFailuresResponseSchema = z.object({
  allQuarantined: z.boolean().describe('true only when there was at least one failure and every one is quarantined'),
  quarantined: z.array(checkedTest.extend({ quarantine_setting: z.enum(['ALWAYS_QUARANTINE', 'AUTO_QUARANTINE']) })),
  notQuarantined: z.array(checkedTest),
});

export const testDetailsResponseSchema = z.object({
  test: failingTestSchema.extend({
    status: statusValue.extend({
      monitors: z.array(
        z.object({
          monitor: z.enum(['pass_on_retry', 'failure_rate', 'broken_rate', 'consecutive_failures', 'broken_on_pull_requests']),
          status: z.enum(['FLAKY', 'BROKEN']),
          since: time,
          reason: z.string(),
        }),
      ),
    }),
    quarantine_setting: z.enum(['ALWAYS_QUARANTINE', 'NEVER_QUARANTINE', 'AUTO_QUARANTINE']),
    quarantined_at: time.nullable(),
    status_last_updated_at: time,
    first_seen_at: time,
    last_seen_at: time,
    last_failed_at: time.nullable(),
  }),
});

export const linkTicketResponseSchema = z.object({
  test_case_id: z.string(),
  ticket: z.object({ html_url: z.url() }).optional().describe('absent once the ticket is unlinked'),
});

export const reclassifyResponseSchema = z.object({ evaluated: z.number().int().min(0), changed: z.number().int().min(0) });

const evidenceReportersField = z
  .array(z.string())
  .nullable()
  .describe('whose uploads count as evidence for an automatic quarantine besides the local CI; null: every upload counts');

export const evidenceReportersResponseSchema = z.object({ reporters: evidenceReportersField });

export const evidenceReportersSetResponseSchema = reclassifyResponseSchema.extend({ reporters: evidenceReportersField });
