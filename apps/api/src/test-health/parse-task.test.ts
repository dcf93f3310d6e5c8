import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { runParseTask, type ParseTask } from './parse-task';

const FIXTURES = path.resolve(__dirname, '../../../../libs/testhealth/fixtures');
const fixture = (name: string) => ({ name, bytes: readFileSync(path.join(FIXTURES, name)) });
const task = (files: ParseTask['files']): ParseTask => ({
  files,
  orgSlug: 'acme-org',
  repo: { host: 'git.test', owner: 'acme', name: 'widgets' },
  maxFileBytes: 1024 * 1024,
  maxUploadCases: 100_000,
  maxUploadXmlBytes: 2 * 1024 * 1024,
});
const cases = (count: number, from = 0) => ({
  name: `r${from}.xml`,
  bytes: Buffer.from(
    `<testsuite name="s">${Array.from({ length: count }, (_, i) => `<testcase name="t${from + i}"/>`).join('')}</testsuite>`,
  ),
});

describe('runParseTask', () => {
  it.each([
    ['jest-junit.xml', 4, { testCount: 3, failedCount: 1 }],
    ['pytest-xunit1.xml', 6, { testCount: 4, failedCount: 2 }],
    ['pytest-xunit2.xml', 2, { testCount: 2, failedCount: 0 }],
    ['surefire-reruns.xml', 5, { testCount: 4, failedCount: 1 }],
    ['gradle-unmerged-reruns.xml', 2, { testCount: 2, failedCount: 0 }],
    ['gotestsum-rerun.xml', 5, { testCount: 4, failedCount: 1 }],
    ['bazel-generated.xml', 1, { testCount: 1, failedCount: 1 }],
    ['bazel-notrun.xml', 2, { testCount: 1, failedCount: 0 }],
    ['nested-suites.xml', 3, { testCount: 3, failedCount: 0 }],
  ])('when %s is parsed, then its cases, counts and candidate ids come out', (name, cases, stats) => {
    const outcome = runParseTask(task([fixture(name)]));

    if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
    expect(outcome.upload.caseCount).toBe(cases);
    expect(outcome.upload.stats).toEqual(stats);
    expect(outcome.upload.inline).toHaveLength(cases);
    expect(outcome.upload.failingIds.length + outcome.upload.passedIds.length).toBeLessThanOrEqual(cases);
  });

  it.each([
    ['billion-laughs.xml', 'ENTITIES_NOT_ALLOWED'],
    ['external-entity.xml', 'ENTITIES_NOT_ALLOWED'],
    ['malformed.xml', 'MALFORMED'],
    ['not-junit.xml', 'NOT_JUNIT'],
  ])('when %s is parsed, then it is refused with %s and the message names the file', (name, code) => {
    expect(runParseTask(task([fixture('jest-junit.xml'), fixture(name)]))).toMatchObject({
      ok: false,
      code,
      message: expect.stringContaining(name),
    });
  });

  it('when a file is gzip, then it is read like the plain one', () => {
    const plain = runParseTask(task([fixture('jest-junit.xml')]));
    const zipped = runParseTask(task([{ name: 'jest.xml.gz', bytes: gzipSync(fixture('jest-junit.xml').bytes) }]));

    expect(zipped).toEqual(plain);
  });

  it('when a gzip inflates past the per-file cap, then it is TOO_LARGE', () => {
    const bomb = gzipSync(
      Buffer.concat([Buffer.from('<testsuite name="x">'), Buffer.alloc(3 * 1024 * 1024, 0x20), Buffer.from('</testsuite>')]),
    );

    expect(runParseTask(task([{ name: 'bomb.xml.gz', bytes: bomb }]))).toMatchObject({ ok: false, code: 'TOO_LARGE' });
  });

  it('when two files are successive attempts, then a test that failed and then passed is flaky', () => {
    const attempt = (body: string) => ({
      name: 'a.xml',
      bytes: Buffer.from(`<testsuite name="s"><testcase name="t">${body}</testcase></testsuite>`),
    });

    const outcome = runParseTask(task([attempt('<failure/>'), attempt('')]));

    expect(outcome).toMatchObject({ ok: true, upload: { caseCount: 1, stats: { testCount: 1, failedCount: 0 } } });
    expect(outcome.ok && outcome.upload.inline?.[0]?.outcome).toBe('flaky');
  });

  it('when a report is large, then the cases leave as a blob instead of inline', () => {
    const body = Array.from({ length: 2000 }, (_, i) => `<testcase name="case ${i}" classname="Big" file="src/big.ts"/>`).join('');

    const outcome = runParseTask(task([{ name: 'big.xml', bytes: Buffer.from(`<testsuite name="big">${body}</testsuite>`) }]));

    expect(outcome).toMatchObject({ ok: true, upload: { caseCount: 2000 } });
    expect(outcome.ok && outcome.upload.inline).toBeUndefined();
    expect(outcome.ok && outcome.upload.blob?.byteLength).toBeGreaterThan(0);
  });

  it('when the files together hold more cases than the upload may, then it is TOO_MANY_CASES for the upload, though each file is under it', () => {
    const files = Array.from({ length: 4 }, (_, i) => cases(6, i * 6));

    expect(runParseTask({ ...task(files.slice(0, 3)), maxUploadCases: 20 })).toMatchObject({ ok: true, upload: { caseCount: 18 } });
    expect(runParseTask({ ...task(files), maxUploadCases: 20 })).toEqual({
      ok: false,
      code: 'TOO_MANY_CASES',
      message: expect.stringMatching(/more than 20 test cases in all its files together \(passed at r18\.xml\)/),
    });
  });

  it('when gzip files together inflate past the upload’s XML cap, then it is TOO_LARGE for the upload, though each file is under it', () => {
    const padded = (name: string) => ({
      name,
      bytes: gzipSync(Buffer.concat([Buffer.from('<testsuite name="x">'), Buffer.alloc(600 * 1024, 0x20), Buffer.from('</testsuite>')])),
    });

    expect(runParseTask(task([padded('a.xml.gz'), padded('b.xml.gz'), padded('c.xml.gz'), padded('d.xml.gz')]))).toEqual({
      ok: false,
      code: 'TOO_LARGE',
      message: expect.stringMatching(/more than 2097152 bytes of XML together \(passed at d\.xml\.gz\)/),
    });
  });
});
