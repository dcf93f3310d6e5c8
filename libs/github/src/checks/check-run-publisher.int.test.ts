import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  QUEUE_EVENT_SCHEMA_VERSION,
  decide,
  decideEngine,
  evolve,
  initialQueueState,
  queueIdOf,
  queueStreamOf,
  type DecideContext,
  type EngineCommand,
  type QueueCommand,
  type QueueEvent,
  type QueueState,
} from '@railyard/domain';
import { CommandHandler, SqliteEventStore, type EventStore } from '@railyard/eventstore';
import { createLogger } from '@railyard/observability';
import { eventually as eventuallyWithin, FakeGithub, makeTempDir, removeTempDir, startTestRunOf } from '@railyard/testkit';
import { createGithubApp, type GithubApp } from '../github-app';
import { CheckRunPublisher, STICKY_MARKER } from './check-run-publisher';

/** The check run on GitHub PRs, written from the event stream to the fake GitHub (docs/github.md, "The check run"). */

const REPO = 'acme/widgets';
const eventually = (check: () => boolean | Promise<boolean>, what: string) => eventuallyWithin(check, what, 20_000);
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const STREAM = queueStreamOf(queueIdOf(repo, 'main'));
const PUBLIC = 'https://railyard.example';
const logger = createLogger('test', 'error');

// Each test waits on the fake and the publisher over HTTP; a loaded machine needs the room.
jest.setTimeout(60_000);

let dir: string;
let fake: FakeGithub;
let store: EventStore;
let app: GithubApp;
let publisher: CheckRunPublisher | null;

const ctx = (): DecideContext => ({ now: new Date().toISOString(), newId: randomUUID });
const options = { context: ctx, newEventId: randomUUID, schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, now: () => new Date().toISOString() };
const api = () =>
  new CommandHandler<QueueState, QueueCommand, QueueEvent, DecideContext>(
    store,
    { initialState: initialQueueState, evolve, decide },
    options,
  );
const engine = () =>
  new CommandHandler<QueueState, EngineCommand, QueueEvent, DecideContext>(
    store,
    { initialState: initialQueueState, evolve, decide: decideEngine },
    options,
  );
const meta = { actor: 'test', correlationId: 'test' };

const writes = () =>
  fake.requests.count(
    (r) => r.route.startsWith('POST /repos/{owner}/{repo}/check-runs') || r.route.startsWith('PATCH /repos/{owner}/{repo}/check-runs'),
  );
const runOn = (sha: string) => fake.checkRuns(REPO, sha).filter((r) => r.name === 'Railyard (main)');

const startPublisher = async (extra: { stickyComments?: boolean } = {}): Promise<CheckRunPublisher> => {
  const p = new CheckRunPublisher({
    eventStore: store,
    github: app,
    host: 'github.com',
    appId: fake.appId,
    publicUrl: PUBLIC,
    logger,
    retryMs: 50,
    ...extra,
  });
  await p.start();
  return p;
};

const openPr = async (branch: string) => {
  await fake.commit({ repo: REPO, branch, files: { [`${branch}.txt`]: `${branch}\n` } });
  return fake.openPullRequest({ repo: REPO, head: branch });
};

const submit = async (pr: { number: number; headSha: string; title: string }) =>
  api().execute(
    STREAM,
    {
      type: 'SubmitPullRequest',
      pr: {
        number: pr.number,
        title: pr.title,
        author: 'alice',
        headSha: pr.headSha,
        baseBranch: 'main',
        state: 'open',
        mergeability: 'mergeable',
      },
    },
    meta,
  );

const startRun = async (pr: { number: number; headSha: string }) => {
  const command = await startTestRunOf(fake, REPO, pr, ['ci/build']);
  await engine().execute(STREAM, command, meta);
  return command.testRunId;
};

beforeEach(async () => {
  dir = await makeTempDir('railyard-checks-');
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 0 } });
  await fake.createRepo({ repo: REPO, files: { 'README.md': '# widgets\n' } });
  fake.install({ account: 'acme' });
  app = await createGithubApp({
    settings: { appId: fake.appId, privateKey: fake.appPrivateKey, webhookSecret: fake.webhookSecret, apiUrl: fake.url },
    logger,
    writeMinTimeMs: 0,
    retryAfterUnitMs: 1,
  });
  store = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  await api().execute(STREAM, { type: 'CreateQueue', queueId: queueIdOf(repo, 'main'), repo, branch: 'main' }, meta);
  publisher = null;
});

afterEach(async () => {
  await publisher?.stop();
  await store.close();
  await fake.webhooks.settled();
  const violations = [...fake.violations];
  await fake.stop();
  await removeTempDir(dir);
  expect(violations).toEqual([]);
});

describe('CheckRunPublisher', () => {
  it('when PRs are queued, then each gets one check run saying its position, and the second moves up when the first is cancelled', async () => {
    publisher = await startPublisher();
    const one = await openPr('one');
    const two = await openPr('two');
    await submit(one);
    await submit(two);
    await eventually(() => runOn(two.headSha)[0]?.output.title === 'Queued at position 2', 'two is queued at position 2');
    expect(runOn(one.headSha).map((r) => [r.status, r.output.title, r.detailsUrl])).toEqual([
      ['queued', 'Queued at position 1', `${PUBLIC}/repos/github.com/acme/widgets/pulls/${one.number}`],
    ]);
    await api().execute(STREAM, { type: 'CancelPullRequest', prNumber: one.number }, meta);
    await eventually(() => runOn(two.headSha)[0]?.output.title === 'Queued at position 1', 'two moves up');
    await eventually(() => runOn(one.headSha)[0]?.conclusion === 'cancelled', 'one says cancelled');
    expect(runOn(one.headSha)).toHaveLength(1);
    expect(runOn(one.headSha)[0]?.output.title).toBe('Cancelled: cancelled on request');
  });

  it('when a run fails on a check, then the check run fails with the reason and the failing check’s link', async () => {
    publisher = await startPublisher();
    const pr = await openPr('feature');
    await submit(pr);
    const runId = await startRun(pr);
    await eventually(() => runOn(pr.headSha)[0]?.status === 'in_progress', 'the check run says testing');
    expect(runOn(pr.headSha)[0]?.output.summary).toContain('ci/build: not reported yet');
    await engine().execute(
      STREAM,
      { type: 'ReportTestStatus', testRunId: runId, context: 'ci/build', state: 'failure', url: 'https://ci.example/build/7' },
      meta,
    );
    await engine().execute(STREAM, { type: 'CompleteTestRun', testRunId: runId, outcome: 'failed', failedContexts: ['ci/build'] }, meta);
    await eventually(() => runOn(pr.headSha)[0]?.output.title === 'A check failed; confirming', 'the check run says a check failed');
    // The planner fails a PR whose run failed (after its anti-flake wait); the engine records it so.
    await engine().execute(
      STREAM,
      { type: 'FailPr', prNumber: pr.number, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'ci/build failed', testRunId: runId },
      meta,
    );
    await eventually(() => runOn(pr.headSha)[0]?.status === 'completed', 'the check run completes');
    const run = runOn(pr.headSha)[0];
    expect(run?.conclusion).toBe('failure');
    expect(run?.output.title).toBe('Failed: a required check failed');
    expect(run?.output.summary).toContain('[ci/build](https://ci.example/build/7)');
  });

  it('when the PR merges, then the check run says merged with the landed commit', async () => {
    publisher = await startPublisher();
    const pr = await openPr('feature');
    await submit(pr);
    const runId = await startRun(pr);
    await engine().execute(STREAM, { type: 'ReportTestStatus', testRunId: runId, context: 'ci/build', state: 'success' }, meta);
    await engine().execute(STREAM, { type: 'CompleteTestRun', testRunId: runId, outcome: 'passed' }, meta);
    await engine().execute(
      STREAM,
      { type: 'MarkMerged', prNumber: pr.number, mergeSha: pr.headSha, testRunId: runId, reason: 'MERGE_GRAPH_MERGE' },
      meta,
    );
    await eventually(() => runOn(pr.headSha)[0]?.conclusion === 'success', 'the check run says merged');
    expect(runOn(pr.headSha)[0]?.output).toMatchObject({ title: 'Merged', summary: expect.stringContaining(pr.headSha) });
  });

  it('when the publisher restarts, then it writes nothing the check runs already say, and only the new change', async () => {
    publisher = await startPublisher();
    const one = await openPr('one');
    const two = await openPr('two');
    await submit(one);
    await submit(two);
    await eventually(() => runOn(two.headSha)[0]?.output.title === 'Queued at position 2', 'both are published');
    await publisher.idle();
    await publisher.stop();
    const before = writes();

    publisher = await startPublisher();
    await eventually(async () => {
      await publisher?.idle();
      return fake.requests.count((r) => r.route.startsWith('GET /repos/{owner}/{repo}/commits/{ref}/check-runs')) >= 2;
    }, 'the new publisher looked the check runs up');
    await publisher.idle();
    expect(writes()).toBe(before);

    await api().execute(STREAM, { type: 'CancelPullRequest', prNumber: two.number }, meta);
    await eventually(() => runOn(two.headSha)[0]?.conclusion === 'cancelled', 'two says cancelled');
    await publisher.idle();
    expect(writes()).toBe(before + 1);
    expect(runOn(two.headSha)).toHaveLength(1);
  });

  it('when a write to GitHub fails, then it is tried again and the check run still ends right', async () => {
    fake.faults.inject({ operation: 'checks/create', times: 1, kind: 'server-error', afterApply: true });
    publisher = await startPublisher();
    const pr = await openPr('feature');
    await submit(pr);
    await eventually(() => runOn(pr.headSha)[0]?.output.title === 'Queued at position 1', 'the check run is written after the failure');
    expect(runOn(pr.headSha)).toHaveLength(1);
  });

  it('when sticky comments are off (the default), then no comment is written', async () => {
    publisher = await startPublisher();
    const pr = await openPr('feature');
    await submit(pr);
    await eventually(() => runOn(pr.headSha).length === 1, 'the check run is written');
    await publisher.idle();
    expect(fake.comments(REPO, pr.number)).toEqual([]);
  });

  it('when sticky comments are on, then one comment follows the check run, edited in place, and a queue with comments disabled gets none', async () => {
    publisher = await startPublisher({ stickyComments: true });
    const pr = await openPr('feature');
    await submit(pr);
    const sticky = () => fake.comments(REPO, pr.number).filter((c) => c.body.startsWith(STICKY_MARKER));
    await eventually(() => sticky()[0]?.body.includes('Queued at position 1') === true, 'the sticky comment says queued');
    await api().execute(STREAM, { type: 'CancelPullRequest', prNumber: pr.number }, meta);
    await eventually(() => sticky()[0]?.body.includes('Cancelled') === true, 'the sticky comment says cancelled');
    expect(sticky()).toHaveLength(1);

    await api().execute(STREAM, { type: 'UpdateQueue', settings: { commentsEnabled: false } }, meta);
    const quiet = await openPr('quiet');
    await submit(quiet);
    await eventually(() => runOn(quiet.headSha).length === 1, 'the check run of the quiet PR is written');
    await publisher.idle();
    expect(fake.comments(REPO, quiet.number)).toEqual([]);
  });
});
