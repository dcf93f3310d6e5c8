import { execFile } from 'node:child_process';
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { apiDocument } from './document';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../../..');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

describe('the OpenAPI document under Redocly lint', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir();
  });
  afterAll(() => removeTempDir(dir));

  it("when the generated document is linted with Redocly's recommended rules, then there is no error and no warning", async () => {
    await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(apiDocument(), null, 2));
    await copyFile(path.join(__dirname, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
    await copyFile(path.join(__dirname, 'redocly-lint-ignore.yaml'), path.join(dir, '.redocly.lint-ignore.yaml'));

    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        path.join(ROOT, 'node_modules/.bin/redocly'),
        ['lint', 'openapi.json', '--format=json'],
        // No telemetry or update check: the tests run without internet.
        { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 1 << 24 },
        (error, out, err) => (out.trim().startsWith('{') ? resolve(out) : reject(new Error(`redocly failed: ${error?.message}\n${err}`))),
      ),
    );
    const report = JSON.parse(stdout) as LintReport;

    expect(report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 3 });
  });
});
