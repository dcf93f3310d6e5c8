import { z } from 'zod';
import { anyCaseEnum, repoSchema } from '@railyard/api-schema';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const testIdSchema = z.preprocess(
  (v) => (typeof v === 'string' ? v.toLowerCase() : v),
  z.string().regex(UUID, 'must be a test id (a UUID)'),
);

/** page_size and page_token are checked by libs/testhealth paging, so their errors carry its codes. */
const pageQuerySchema = z.object({ page_size: z.unknown().optional(), page_token: z.unknown().optional() }).strict();

export const listUnhealthyRequest = z
  .object({
    repo: repoSchema,
    org_url_slug: z.string().min(1).max(100),
    page_query: pageQuerySchema,
    status: anyCaseEnum(['flaky', 'broken'] as const),
  })
  .strict();

export const listQuarantinedRequest = z
  .object({ repo: repoSchema, org_url_slug: z.string().min(1).max(100), page_query: pageQuerySchema })
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

export const testDetailsRequest = z.object({ repo: repoSchema, test_id: testIdSchema }).strict();

export const linkTicketRequest = z
  .object({ repo: repoSchema, test_case_id: testIdSchema, html_url: z.union([z.url({ protocol: /^https?$/ }).max(2000), z.literal('')]) })
  .strict();

export const reclassifyRequest = z.object({ repo: repoSchema }).strict();

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
