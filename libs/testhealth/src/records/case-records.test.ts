import { gunzipSync } from 'node:zlib';
import { parseJUnit } from '../junit/parse';
import { caseRecordsOf, casesOf, decodeCasesBlob, encodeCases, INLINE_CASES_MAX_BYTES, testIdOfReported, uniqueById } from './case-records';
import { repoIdOf, repoOfId, testsStreamOf } from '../events/events';

const REPO = { host: 'git.test', owner: 'acme', name: 'widgets' };
const context = { orgSlug: 'acme-org', repo: REPO };

const xml = (cases: string) => Buffer.from(`<testsuite name="s">${cases}</testsuite>`);

describe('case records', () => {
  it('when cases are recorded, then each carries the id testIdOf gives its identity and the outcome', () => {
    const parsed = parseJUnit(
      xml('<testcase name="a" classname="C" file="./src/a.ts"><failure message="boom"/></testcase><testcase name="b"/>'),
    );

    const records = caseRecordsOf(parsed.cases, context);

    expect(records.map((r) => [r.name, r.file, r.outcome, r.failureMessage])).toEqual([
      ['a', 'src/a.ts', 'failed', 'boom'],
      ['b', '', 'passed', undefined],
    ]);
    expect(records[0]?.id).toBe(testIdOfReported({ name: 'a', classname: 'C', file: 'src/a.ts', parent: 's' }, context));
  });

  it('when a CI job names a failure the way its report did, then the id matches the recorded one despite path spelling and long names', () => {
    const long = 'n'.repeat(1500);
    const [recorded] = caseRecordsOf(parseJUnit(xml(`<testcase name="${long}" classname="C" file="src\\deep\\a.ts"/>`)).cases, context);

    expect(testIdOfReported({ name: long, classname: 'C', file: './src/deep/a.ts', parent: 's' }, context)).toBe(recorded?.id);
  });

  it('when one upload names the same test twice, then the later record stands', () => {
    const [a] = caseRecordsOf(parseJUnit(xml('<testcase name="a"/>')).cases, context);
    const failed = { ...(a as NonNullable<typeof a>), outcome: 'failed' as const };

    expect(uniqueById([a as NonNullable<typeof a>, failed])).toEqual([failed]);
  });

  it('when the cases are small, then they stay inline; when large, then they become a gzip JSON blob that decodes back', async () => {
    const [one] = caseRecordsOf(parseJUnit(xml('<testcase name="a"/>')).cases, context);
    const record = one as NonNullable<typeof one>;
    expect(encodeCases([record])).toEqual({ inline: [record], count: 1 });

    const many = Array.from({ length: Math.ceil(INLINE_CASES_MAX_BYTES / 60) }, (_, i) => ({
      ...record,
      id: `id-${i}`,
      name: `test number ${i}`,
    }));
    const encoded = encodeCases(many);

    expect(encoded.inline).toBeUndefined();
    expect(JSON.parse(gunzipSync(encoded.blob as Buffer).toString('utf8'))).toEqual(many);
    expect(decodeCasesBlob(encoded.blob as Buffer)).toEqual(many);
    expect(encodeCases(many).blob?.equals(encoded.blob as Buffer)).toBe(true);
    await expect(casesOf({ digest: 'd', count: many.length, encoding: 'json+gzip' }, async () => encoded.blob as Buffer)).resolves.toEqual(
      many,
    );
    await expect(casesOf({ digest: 'd', count: 1, encoding: 'json+gzip' }, async () => null)).rejects.toThrow(/missing/);
  });
});

describe('repository ids', () => {
  it('when a repository has odd characters, then its id round-trips and names its tests stream', () => {
    const repo = { host: 'git.example.com', owner: 'team~a', name: 'my repo' };

    expect(repoOfId(repoIdOf(repo))).toEqual(repo);
    expect(testsStreamOf(repo)).toBe(`tests-${repoIdOf(repo)}`);
    expect(repoOfId('not-an-id')).toBeNull();
    expect(repoOfId('a~%E0%A4%A~c')).toBeNull();
  });
});
