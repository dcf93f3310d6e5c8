import path from 'node:path';
import { decide, queueIdOf, queueStreamOf, type QueueCommand, type RepoRef } from '@railyard/domain';
import { SqliteEventStore, type RecordedEvent } from '@railyard/eventstore';
import { createLogger } from '@railyard/observability';
import { queueCommandHandler } from '@railyard/runtime';
import { makeTempDir, removeTempDir, type CiCheck } from '@railyard/testkit';
import { GITHUB_HOST, startGithubBed, type GithubBed } from '../../../test/contract/support/github-bed';
import { startEngine, type EngineHandle } from './engine';

// Flake re-runs on GitHub (docs/github.md, "Flake re-runs"): the real engine on the fake GitHub, whose
// CI reports `ci`, required by a ruleset, and fails it on the first attempt only.

jest.setTimeout(60_000);

const FULL = 'acme/widgets';
const REPO: RepoRef = { host: GITHUB_HOST, owner: 'acme', name: 'widgets' };
const STREAM = queueStreamOf(queueIdOf(REPO, 'main'));
const META = { actor: 'test', correlationId: 'test' };
const RERUN_ROUTE = 'POST /repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest';

let bed: GithubBed;
let dir: string;
let store: SqliteEventStore;
let engine: EngineHandle | undefined;

const flakyOnce = (via: CiCheck['via']): CiCheck => ({
  name: 'ci',
  via,
  outcome: ({ attempt }) => (attempt === 1 ? 'failure' : 'success'),
});

/** A queue with flakeRetries 1 holding one PR, and the engine draining it until the PR merged or failed. */
const queueOnePr = async (check: CiCheck): Promise<{ number: number; ended: RecordedEvent }> => {
  bed.fake.addRuleset(FULL, { branches: ['main'], requiredChecks: [{ context: 'ci' }] });
  bed.fake.ci.configure(FULL, { branches: (b) => b.startsWith('railyard-merge/'), checks: [check] });
  await bed.fake.commit({ repo: FULL, branch: 'feature', from: 'main', files: { 'feature.txt': 'new\n' } });
  const { number } = await bed.fake.openPullRequest({ repo: FULL, head: 'feature', base: 'main', title: 'Feature' });
  const api = queueCommandHandler<QueueCommand>(store, decide);
  const queueId = queueIdOf(REPO, 'main');
  await api.execute(STREAM, { type: 'CreateQueue', queueId, repo: REPO, branch: 'main', settings: { flakeRetries: 1 } }, META);
  const pr = await bed.host.snapshot(REPO, number);
  if (!pr) throw new Error(`PR ${number} missing`);
  await api.execute(STREAM, { type: 'SubmitPullRequest', pr }, META);
  engine = startEngine({ eventStore: store, host: bed.host, ci: bed.ci, logger: createLogger('github-flakes', 'error'), tickMs: 100 });
  for (;;) {
    const ended = (await store.readStream(STREAM)).find((e) => e.type === 'PrMerged' || e.type === 'PrFailed');
    if (ended) return { number, ended };
    await new Promise((r) => setTimeout(r, 100));
  }
};

const retries = async () =>
  (await store.readStream(STREAM)).filter((e) => e.type === 'TestRunStarted' && (e.data as { retry?: unknown }).retry !== undefined);

beforeEach(async () => {
  dir = await makeTempDir('railyard-github-flakes-');
  store = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  bed = await startGithubBed();
});

afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  const violations = [...bed.fake.violations];
  await bed.close();
  await store.close();
  await removeTempDir(dir);
  expect(violations).toEqual([]);
});

describe('flake re-runs on GitHub', () => {
  it('when a required check run fails once, then its check suite is re-requested on the same commit and the PR merges after one re-run', async () => {
    const { ended } = await queueOnePr(flakyOnce('check_run'));
    expect(ended.type).toBe('PrMerged');
    expect(await retries()).toHaveLength(1);
    expect(bed.fake.requests.byRoute()[RERUN_ROUTE]).toBe(1);
    // What landed is the commit both attempts ran on.
    const tested = (await store.readStream(STREAM)).find((e) => e.type === 'TestRunStarted')?.data as { testBranchSha: string };
    expect(await bed.fake.branchSha(FULL, 'main')).toBe(tested.testBranchSha);
  });

  it('when the failed check is a commit status, then GitHub cannot run it again: no re-run is asked and the PR fails', async () => {
    const { ended } = await queueOnePr(flakyOnce('status'));
    expect(ended.type).toBe('PrFailed');
    expect(await retries()).toHaveLength(0);
    expect(bed.fake.requests.byRoute()[RERUN_ROUTE]).toBeUndefined();
  });
});
