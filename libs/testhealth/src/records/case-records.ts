import { gunzipSync, gzipSync } from 'node:zlib';
import type { CaseRecord, CasesRef, RepoRef } from '../events/events';
import { formatRepo } from '@railyard/domain';
import { testIdOf } from '../identity/test-id';
import { DEFAULT_JUNIT_LIMITS } from '../junit/limits';
import { normalizePath, truncate } from '../junit/text';
import type { TestCaseResult } from '../junit/types';

/** Cases whose JSON is at most this size ride inside the event; larger lists go to the blob store. */
export const INLINE_CASES_MAX_BYTES = 64 * 1024;

/** The recorded form of parsed cases, with the id every later lookup uses. */
export function caseRecordsOf(cases: readonly TestCaseResult[], context: { orgSlug: string; repo: RepoRef }): CaseRecord[] {
  const repoFullName = formatRepo(context.repo);
  return cases.map((c) => ({
    id: testIdOf({
      orgSlug: context.orgSlug,
      repoFullName,
      file: c.file,
      classname: c.classname,
      parent: c.parent,
      name: c.name,
      variant: c.variant,
      ...(c.explicitId !== undefined ? { explicitId: c.explicitId } : {}),
    }),
    name: c.name,
    classname: c.classname,
    file: c.file,
    parent: c.parent,
    variant: c.variant,
    outcome: c.status,
    durationMs: c.durationMs,
    ...(c.failureMessage !== undefined ? { failureMessage: c.failureMessage } : {}),
  }));
}

/**
 * The same test twice in one upload (two files naming it, a matrix without variants) would be two
 * runs of one test on one commit; the last one stands, as the parser does for retries inside a file.
 */
export function uniqueById(records: readonly CaseRecord[]): CaseRecord[] {
  const byId = new Map<string, CaseRecord>();
  for (const r of records) {
    byId.delete(r.id);
    byId.set(r.id, r);
  }
  return [...byId.values()];
}

export interface EncodedCases {
  /** What the event carries. For a blob, `digest` is filled in by whoever stores `blob`. */
  inline?: CaseRecord[];
  blob?: Buffer;
  count: number;
}

/** Small lists stay inline; larger ones become a gzip JSON array for the blob store. */
export function encodeCases(records: readonly CaseRecord[]): EncodedCases {
  const json = JSON.stringify(records);
  if (Buffer.byteLength(json, 'utf8') <= INLINE_CASES_MAX_BYTES) return { inline: [...records], count: records.length };
  // Level 6 and no timestamp in the header: the same cases always give the same bytes, hence the same digest.
  return { blob: gzipSync(Buffer.from(json, 'utf8'), { level: 6 }), count: records.length };
}

export function decodeCasesBlob(bytes: Buffer): CaseRecord[] {
  const parsed = JSON.parse(gunzipSync(bytes).toString('utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error('a cases blob must hold a JSON array');
  return parsed as CaseRecord[];
}

/** The cases of an upload, reading the blob through `load` when they are not inline. */
export async function casesOf(ref: CasesRef, load: (digest: string) => Promise<Buffer | null>): Promise<CaseRecord[]> {
  if ('inline' in ref) return ref.inline;
  const bytes = await load(ref.digest);
  if (!bytes) throw new Error(`the cases blob ${ref.digest} is missing from the blob store`);
  return decodeCasesBlob(bytes);
}

export interface ReportedFailure {
  name: string;
  classname?: string;
  file?: string;
  parent?: string;
  variant?: string;
  /** The testcase `id` attribute, when the runner writes one. */
  id?: string;
}

/**
 * The id of a test named the way a JUnit report names it, normalised exactly as the parser does
 * (paths, the 1,000-character cap), so a CI job asking about its failures gets the ids its upload
 * recorded.
 */
export function testIdOfReported(failure: ReportedFailure, context: { orgSlug: string; repo: RepoRef }): string {
  const field = (value: string | undefined) => truncate(value ?? '', DEFAULT_JUNIT_LIMITS.maxFieldLength).text;
  return testIdOf({
    orgSlug: context.orgSlug,
    repoFullName: formatRepo(context.repo),
    file: field(normalizePath(failure.file ?? '', {})),
    classname: field(failure.classname),
    parent: field(failure.parent),
    name: field(failure.name),
    variant: field(failure.variant),
    ...(failure.id ? { explicitId: failure.id } : {}),
  });
}
