import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { collectReports, MAX_REPORT_BYTES, reportMatcher } from './reports';

describe('reportMatcher', () => {
  it.each([
    ['reports/junit*.xml', 'reports/junit-unit.xml', true],
    ['reports/junit*.xml', 'reports/sub/junit-unit.xml', false],
    ['reports/junit*.xml', 'reportsXjunit.xml', false],
    ['**/junit.xml', 'junit.xml', true],
    ['**/junit.xml', 'a/b/junit.xml', true],
    ['out/**', 'out/a/b.xml', true],
    ['out/**/*.xml', 'out/x.xml', true],
    ['out/**/*.xml', 'out/a/b/x.xml', true],
    ['test-?.xml', 'test-1.xml', true],
    ['test-?.xml', 'test-12.xml', false],
    ['a+b(1).xml', 'a+b(1).xml', true],
    ['*.xml', '.hidden.xml', true],
    ['reports/{unit,e2e}.xml', 'reports/e2e.xml', true],
  ])('when %s is matched against %s, then the answer is %s', (pattern, file, expected) => {
    expect(reportMatcher(pattern)(file)).toBe(expected);
  });
});

describe('collectReports', () => {
  it('when patterns name exact paths, braces and globs, then exactly the matching files are read, in path order', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'reports-'));
    try {
      for (const rel of ['junit.xml', 'out/a/unit.xml', 'out/e2e.xml', 'out/other.txt', 'deep/x/y/junit.xml']) {
        await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
        await fs.writeFile(path.join(root, rel), rel);
      }
      const { paths, files } = await collectReports(root, ['junit.xml', 'out/{e2e,nope}.xml', 'out/**/unit.xml', 'deep/**/junit.xml']);
      expect(paths).toEqual(['deep/x/y/junit.xml', 'junit.xml', 'out/a/unit.xml', 'out/e2e.xml']);
      expect(files.map(String)).toEqual(paths);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it('when a link sits at any level under a pattern, a file has a second name, or the reports pass the size budget, then those are skipped with the reason and the rest is read', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'reports-'));
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'outside-'));
    try {
      await fs.writeFile(path.join(outside, 'secret.xml'), 'outside');
      await fs.mkdir(path.join(root, 'out/a'), { recursive: true });
      await fs.writeFile(path.join(root, 'out/a/ok.xml'), 'ok');
      await fs.symlink(outside, path.join(root, 'out/a/deep'));
      await fs.symlink(outside, path.join(root, 'linked'));
      await fs.link(path.join(outside, 'secret.xml'), path.join(root, 'out/hard.xml'));
      await fs.writeFile(path.join(root, 'out/big.xml'), Buffer.alloc(MAX_REPORT_BYTES + 1));
      const got = await collectReports(root, ['out/**/*.xml', 'linked/secret.xml']);
      expect(got.paths).toEqual(['out/a/ok.xml']);
      expect(got.files.map(String)).toEqual(['ok']);
      expect(got.skipped).toEqual([
        { path: 'linked', reason: 'a symbolic link, not followed' },
        { path: 'out/big.xml', reason: 'over the 20 MiB the reports of a check may hold' },
        { path: 'out/hard.xml', reason: 'a file with more than one name (hard link)' },
      ]);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
      await fs.rm(outside, { recursive: true, force: true });
    }
  });
});
