import { LocalCiRunner } from '@railyard/ci';
import type { RepoRef } from '@railyard/domain';
import type { MemoryEventStore } from '@railyard/eventstore';
import { localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { createLogger } from '@railyard/observability';
import { runProjector, type ProjectorHandle } from '@railyard/projector';
import type { MemoryTestHealthStore } from '@railyard/readmodels';
import { repoIdOf, testIdOfReported } from '@railyard/testhealth';
import { commitOnBranch, createRepoWithCommits, repoBed } from '@railyard/testkit';
import { TokenRegistry } from '@railyard/auth';
import type { TestHealth } from './create';
import { inMemoryTestHealth } from './testing/in-memory';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const logger = createLogger('test', 'error');
const RUN_ID = '00000000-0000-4000-8000-000000000042';

const bed = repoBed(repo, { gitSubdir: 'git' });
let events: MemoryEventStore;
let store: MemoryTestHealthStore;
let projector: ProjectorHandle;
let testHealth: TestHealth;
let statuses: CommitStatusStore;
let runner: LocalCiRunner;

// Inside the describe, so these hooks end before the bed (a top-level hook) removes the repository.
describe('uploadReports wired into the local CI runner', () => {
  beforeEach(async () => {
    ({ events, store, testHealth } = inMemoryTestHealth({ tokens: new TokenRegistry([]), logger, gitRoot: bed.root }));
    projector = runProjector({ eventStore: events, readModels: store, logger });
    statuses = localHostStatuses({ eventStore: events, gitRoot: bed.root });
    runner = new LocalCiRunner({
      gitRoot: bed.root,
      dataDir: bed.dir,
      statuses,
      publicUrl: () => 'http://railyard.test',
      baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
      uploadReports: testHealth.uploadReports,
    });
  });

  afterEach(async () => {
    await runner.close();
    await statuses.close();
    await testHealth.close();
    await projector.stop();
  });

  it("when a run's checks write the JUnit reports .railyard.yml names, then they are recorded against the run's test branch and commit", async () => {
    // given a test branch whose check writes one passing and one failing case
    const report = `<testsuite name="unit"><testcase name="adds" classname="cart" file="src/cart.test.ts"/><testcase name="rounds" classname="cart" file="src/cart.test.ts"><failure message="off by one"/></testcase></testsuite>`;
    const branch = `railyard-merge/pr-4/${RUN_ID}`;
    const sha = await commitOnBranch(bed.root, repo, {
      branch,
      files: {
        'recorded/unit.xml': report,
        '.railyard.yml': 'ci:\n  unit: "mkdir -p out && cp recorded/unit.xml out/junit.xml; exit 1"\nreports: ["out/junit.xml"]\n',
      },
    });

    // when
    await runner.trigger({ repo, sha, branch, testRunId: RUN_ID, timeoutMinutes: 5 });
    await runner.whenDone(RUN_ID);

    // then
    const uploaded = (await events.readStream(`tests-${repoIdOf(repo)}`)).filter((e) => e.type === 'TestResultsUploaded');
    expect(uploaded).toHaveLength(1);
    expect(uploaded[0]?.data).toMatchObject({
      branch,
      commitSha: sha,
      testRunId: RUN_ID,
      ciJob: 'railyard-ci',
      stats: { testCount: 2, failedCount: 1 },
      treeSha: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(uploaded[0]?.metadata).toMatchObject({ actor: 'ci-runner', correlationId: RUN_ID });
    const failing = testIdOfReported(
      { name: 'rounds', classname: 'cart', parent: 'unit', file: 'src/cart.test.ts' },
      { orgSlug: 'acme-org', repo },
    );
    expect(await store.getTest(repoIdOf(repo), failing)).toMatchObject({ name: 'rounds', lastFailedAt: expect.any(String) });
  });

  it('when the runner gives no branch and the test branch is gone, then the upload still lands on a protected merge-queue branch name', async () => {
    const sha = (await createRepoWithCommits(bed.root, { ...repo, name: 'other' })).sha;

    await testHealth.uploadReports({
      repo: { ...repo, name: 'other' },
      sha,
      testRunId: RUN_ID,
      files: [Buffer.from('<testsuite name="s"><testcase name="t"/></testsuite>')],
    });

    const [uploaded] = await events.readStream(`tests-${repoIdOf({ ...repo, name: 'other' })}`);
    expect(uploaded?.data).toMatchObject({ branch: `railyard-merge/${RUN_ID}`, commitSha: sha });
  });

  it('when a report does not parse, then the callback rejects and nothing is recorded', async () => {
    const sha = (await createRepoWithCommits(bed.root, { ...repo, name: 'third' })).sha;

    await expect(
      testHealth.uploadReports({ repo: { ...repo, name: 'third' }, sha, testRunId: RUN_ID, files: [Buffer.from('<testsuite>')] }),
    ).rejects.toMatchObject({ code: 'MALFORMED' });

    expect(await events.readStream(`tests-${repoIdOf({ ...repo, name: 'third' })}`)).toEqual([]);
  });
});
