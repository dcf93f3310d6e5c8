import { z } from 'zod';
import { anyCaseEnum, branchNameSchema, commitShaSchema, repoSchema, reporterSchema } from '@railyard/api-schema';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const testIdSchema = z.preprocess(
  (v) => (typeof v === 'string' ? v.toLowerCase() : v),
  z.string().regex(UUID, 'must be a test id (a UUID)'),
);

/** page_size and page_token are checked by libs/testhealth paging, so their errors carry its codes. */
const pageQuerySchema = z.object({ page_size: z.unknown().optional(), page_token: z.unknown().optional() }).strict();

const orgSlug = z.string().min(1).max(100);
const time = z.iso.datetime({ offset: true });

export const listUnhealthyRequest = z
  .object({
    repo: repoSchema,
    org_url_slug: orgSlug,
    page_query: pageQuerySchema,
    status: anyCaseEnum(['flaky', 'broken'] as const),
  })
  .strict();

export const listQuarantinedRequest = z.object({ repo: repoSchema, org_url_slug: orgSlug, page_query: pageQuerySchema }).strict();

/** Tests that failed from start_time (inclusive) to end_time (exclusive), a range of at most 7 days (checked by the route). */
export const listFailingRequest = z
  .object({ repo: repoSchema, org_url_slug: orgSlug, start_time: time, end_time: time, page_query: pageQuerySchema })
  .strict();

export const setQuarantineRequest = z
  .object({
    repo: repoSchema,
    testId: testIdSchema,
    quarantine: anyCaseEnum(['always', 'never', 'auto'] as const),
    reason: z.string().max(500).optional(),
  })
  .strict();

const failureByName = z
  .object({
    name: z.string().max(1000),
    classname: z.string().max(1000).optional(),
    file: z.string().max(1000).optional(),
    parent: z.string().max(1000).optional(),
    variant: z.string().max(1000).optional(),
    id: z.string().max(1000).optional(),
  })
  .strict();

export const MAX_CHECKED_FAILURES = 10_000;

export const checkFailuresRequest = z
  .object({
    repo: repoSchema,
    failures: z.array(z.union([z.object({ testId: testIdSchema }).strict(), failureByName])).max(MAX_CHECKED_FAILURES),
  })
  .strict();

/** Trunk's clients name the organisation (required in its document); Railyard's own may leave it out. */
export const testDetailsRequest = z.object({ repo: repoSchema, org_url_slug: orgSlug.optional(), test_id: testIdSchema }).strict();

/** A ticket by the tracker's id (Trunk's external_ticket_id, made a URL with RAILYARD_TICKET_URL) or by its URL; an empty html_url unlinks. */
export const linkTicketRequest = z
  .object({
    repo: repoSchema,
    test_case_id: testIdSchema,
    external_ticket_id: z.string().trim().min(1).max(200).optional(),
    html_url: z.union([z.url({ protocol: /^https?$/ }).max(2000), z.literal('')]).optional(),
  })
  .strict()
  .refine((b) => (b.external_ticket_id === undefined) !== (b.html_url === undefined), {
    message: 'give the ticket by external_ticket_id or by html_url',
    path: ['external_ticket_id'],
  });

const CI_PROVIDERS = [
  'github',
  'jenkins',
  'circleci',
  'semaphore',
  'travis',
  'webappio',
  'codebuild',
  'bitbucket',
  'azure',
  'gitlab',
  'drone',
  'buildkite',
] as const;

/** Trunk's flaky-ci/create-ci-run (alpha): one run of a CI job on a commit. */
export const createCiRunRequest = z
  .object({
    repo: repoSchema,
    org_url_slug: orgSlug,
    ci_job_name: z.string().min(1).max(255),
    provider: z.enum(CI_PROVIDERS).optional(),
    run_start: time,
    run_end: time,
    branch: branchNameSchema('branch'),
    sha: commitShaSchema('sha'),
    attempt: z.number().int().min(0).max(4_294_967_295),
    run_conclusion: z.enum(['success', 'failure', 'skipped', 'cancelled']).optional(),
    run_conclusion_cause: z.enum(['test', 'ci']).optional(),
    providers_job_id: z.string().min(1).max(255).optional(),
    providers_run_id: z.string().min(1).max(255).optional(),
  })
  .strict();

export const reclassifyRequest = z.object({ repo: repoSchema }).strict();

export const getEvidenceReportersRequest = z.object({ repo: repoSchema }).strict();

export const setEvidenceReportersRequest = z
  .object({
    repo: repoSchema,
    reporters: z
      .array(reporterSchema)
      .max(100)
      .nullable()
      .describe(
        'token names or reporter ids whose uploads count as quarantine evidence, besides the local CI; [] the local CI only; null everyone',
      ),
  })
  .strict();

const jsonFile = z.object({ name: z.string().min(1).max(255), contentBase64: z.string().max(28 * 1024 * 1024) }).strict();

/** The JSON form of uploadTestResults; `repo` as an object or as `host/owner/name`. */
export const uploadJsonRequest = z
  .object({
    repo: z.union([repoSchema, z.string()]),
    branch: z.string().min(1).max(255),
    sha: z.string().min(1).max(64),
    job: z.string().max(255).optional(),
    prNumber: z.number().int().min(1).max(4_294_967_295).optional(),
    variant: z.string().max(255).optional(),
    files: z.array(jsonFile).min(1).max(100),
  })
  .strict();
