import type { RepoRef } from '@railyard/domain';
import { commitOnBranch } from '@railyard/testkit';
import type { UploadReportsInput } from './local-ci-runner';
import { RunnerBed } from './testing/runner-bed';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = new RunnerBed(repo, { baseEnv: { PATH: process.env.PATH } });

describe('LocalCiRunner and the config commit', () => {
  it('when the tested commit rewrites .railyard.yml, then the config commit’s checks and reports run against the tested tree', async () => {
    const base = await commitOnBranch(bed.gitRoot, repo, {
      branch: 'main',
      files: {
        '.railyard.yml': 'ci:\n  test: "cat verdict.txt; grep -q pass verdict.txt"\nreports: ["base.xml"]\n',
        'verdict.txt': 'pass\n',
      },
    });
    // The PR breaks the base's check and rewrites it to pass, renames it, and names its own report.
    const tested = await commitOnBranch(bed.gitRoot, repo, {
      branch: 'railyard-merge/pr-1/x',
      from: base,
      files: {
        '.railyard.yml': 'ci:\n  test: "true"\n  extra: "true"\nreports: ["pr.xml"]\n',
        'verdict.txt': 'broken\n',
        'pr.xml': '<testsuite/>',
      },
    });
    const uploads: UploadReportsInput[] = [];
    const r = bed.runner({ uploadReports: async (input) => void uploads.push(input) });
    const testRunId = '00000000-0000-4000-8000-000000000001';
    await r.trigger({ repo, sha: tested, configSha: base, branch: 'railyard-merge/pr-1/x', testRunId, timeoutMinutes: 5 });
    await r.whenDone(testRunId);
    const statuses = await bed.statuses.list(repo, tested);
    expect(statuses.map((s) => [s.context, s.state])).toEqual([['test', 'failure']]);
    expect(await bed.logOf(testRunId, 'test')).toContain('broken');
    // The base names base.xml, which the tested tree does not hold: the PR's pr.xml is not collected.
    expect(uploads).toEqual([]);
  });
});
