import { decideEngine, queueIdOf, queueStreamOf, type EngineCommand } from '@railyard/domain';
import { queueCommandHandler } from '@railyard/runtime';
import type { ComposedApi } from '../compose';
import { apiBed, BED_REPO as repo, type ApiBed } from '../testing/api-bed';

jest.setTimeout(30_000);

const stream = queueStreamOf(queueIdOf(repo, 'main'));
const meta = { actor: 'engine', correlationId: 'engine-pass' };

let bed: ApiBed;
/** The merge engine, another writer of the queue's stream (a worker thread or process in production). */
let engine: ReturnType<typeof queueCommandHandler<EngineCommand>>;

const pr = (n: number) => ({ repo, targetBranch: 'main', pr: { number: n } });
const eventTypes = async () => (await bed.eventStore.readStream(stream)).map((e) => e.type);

beforeEach(async () => {
  // Two API replicas over one event store: each keeps its own cache of the queue's state.
  bed = await apiBed({ replicas: 2 });
  engine = queueCommandHandler<EngineCommand>(bed.eventStore, decideEngine);
  expect((await bed.post('/createQueue', { repo, targetBranch: 'main' })).status).toBe(200);
  expect((await bed.post('/submitPullRequest', pr(1))).body.state).toBe('pending');
});

afterEach(() => bed.close());

const failByEngine = async () => {
  await engine.execute(stream, { type: 'FailPr', prNumber: 1, reason: 'TEST_RUN_TIMEOUT', detail: 'the run timed out' }, meta);
};

describe('resubmitting a PR after another writer moved it on', () => {
  it('when the engine failed a PR and the API submits it again, then a new cycle starts: PrSubmitted is recorded and the PR is pending', async () => {
    await failByEngine();
    const again = await bed.post('/submitPullRequest', pr(1));
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('pending');
    expect(await eventTypes()).toEqual(['QueueCreated', 'PrSubmitted', 'PrFailed', 'PrSubmitted']);
  });

  it('when another API replica cancelled a PR, then submitting it on this replica starts a new cycle', async () => {
    const [a, b] = bed.replicas as [ComposedApi, ComposedApi];
    expect((await bed.post('/cancelPullRequest', pr(1), b)).body.state).toBe('cancelled');
    const again = await bed.post('/submitPullRequest', pr(1), a);
    expect(again.body.state).toBe('pending');
    expect(await eventTypes()).toEqual(['QueueCreated', 'PrSubmitted', 'PrCancelled', 'PrSubmitted']);
  });

  it('when the engine failed a PR, then restarting its tests is refused with 409 and records nothing', async () => {
    await failByEngine();
    const restart = await bed.post('/restartTestsOnPullRequest', pr(1));
    expect(restart.status).toBe(409);
    expect(restart.body.error.code).toBe('PR_NOT_IN_ACTIVE_STATE');
    expect(await eventTypes()).toEqual(['QueueCreated', 'PrSubmitted', 'PrFailed']);
  });
});
