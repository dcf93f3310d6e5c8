import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  decide,
  evolve,
  initialQueueState,
  queueIdOf,
  queueStreamOf,
  QUEUE_EVENT_SCHEMA_VERSION,
  type DecideContext,
  type QueueCommand,
  type QueueEvent,
  type QueueState,
  type RepoRef,
  type ReportedStatus,
} from '@railyard/domain';
import { infrastructureErrorOf } from '@railyard/ci';
import { CommandHandler, SqliteEventStore } from '@railyard/eventstore';
import { LocalCodeHost, LocalGitHost, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, makeTempDir, openPr, removeTempDir } from '@railyard/testkit';
import type { CiPort, CiTrigger } from '@railyard/queue-driver';

export const BED_REPO: RepoRef = { host: 'git.bed', owner: 'acme', name: 'widgets' };

/**
 * A CI that runs nothing: it records what the engine triggered, and the test posts the statuses a
 * real CI would, into the host's real status store (as an external CI posts to a forge).
 */
export class PostingCi implements CiPort {
  readonly triggered: CiTrigger[] = [];
  readonly cancelled: string[] = [];
  readonly retried: { testRunId: string; contexts: string[] }[] = [];
  constructor(
    readonly store: CommitStatusStore,
    private readonly required: string[] = ['tests'],
  ) {}
  get statusStore(): CommitStatusStore {
    return this.store;
  }
  async trigger(req: CiTrigger): Promise<void> {
    this.triggered.push(req);
  }
  async cancel(testRunId: string): Promise<void> {
    this.cancelled.push(testRunId);
  }
  /** As the local CI does: the checks go back to pending before they run again. */
  async retry(req: CiTrigger & { contexts: string[] }): Promise<void> {
    this.retried.push({ testRunId: req.testRunId, contexts: req.contexts });
    for (const context of req.contexts) await this.store.set(BED_REPO, req.sha, { context, state: 'pending' });
  }
  isRunning(testRunId: string): boolean {
    return this.triggered.some((t) => t.testRunId === testRunId);
  }
  async statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    return (await this.store.list(repo, sha)).map((s) => {
      const infrastructureError = infrastructureErrorOf(s);
      return { context: s.context, state: s.state, ...(infrastructureError ? { infrastructureError } : {}) };
    });
  }
  onChange(listener: (repo: RepoRef, sha: string) => void): () => void {
    return this.store.onChange(listener);
  }
  async resolveRequiredStatuses() {
    return { statuses: this.required, source: 'merge_instance' as const };
  }
  async close(): Promise<void> {}
  async post(sha: string, state: ReportedStatus['state'], context = 'tests', description?: string): Promise<void> {
    await this.store.set(BED_REPO, sha, { context, state, ...(description ? { description } : {}) });
  }
}

/** A real bare repository, a real SQLite event store, the local code host and a posting CI: what QueueDriver integration tests drive. */
export const localBed = async (branch = 'main') => {
  const dir = await makeTempDir('railyard-engine-bed-');
  const gitRoot = path.join(dir, 'git');
  await createRepoWithCommits(gitRoot, BED_REPO, { files: { 'README.md': '# widgets\n' } });
  const store = new SqliteEventStore({ file: path.join(dir, 'events.sqlite') });
  const now = () => new Date().toISOString();
  const api = new CommandHandler<QueueState, QueueCommand, QueueEvent, DecideContext>(
    store,
    { initialState: initialQueueState, evolve, decide },
    { context: () => ({ now: now(), newId: () => randomUUID() }), newEventId: randomUUID, schemaVersion: QUEUE_EVENT_SCHEMA_VERSION, now },
  );
  // Statuses as events in the bed's event store, as in production (docs/ci.md, "Commit statuses").
  const statuses = localHostStatuses({ eventStore: store, gitRoot });
  const ci = new PostingCi(statuses);
  const host = new LocalCodeHost({ root: gitRoot, statuses });
  const queueId = queueIdOf(BED_REPO, branch);
  const stream = queueStreamOf(queueId);
  const meta = { actor: 'test', correlationId: 'test' };
  return {
    dir,
    gitRoot,
    store,
    host,
    ci,
    queueId,
    stream,
    command: (c: QueueCommand) => api.execute(stream, c, meta),
    read: () => api.read(stream),
    /**
     * Opens PR `n` adding its own file, and submits it as the API does: with the mergeability the host
     * knows without working it out (`known`), or works out (`compute`).
     */
    openAndSubmit: async (n: number, content = `${n}\n`, mergeability: 'known' | 'compute' = 'compute'): Promise<string> => {
      const head = await commitOnBranch(gitRoot, BED_REPO, { branch: `pr-${n}`, files: { [`f${n}.txt`]: content }, message: `PR ${n}` });
      await openPr(gitRoot, { repo: BED_REPO, number: n, head: `pr-${n}` });
      // The admin works mergeability out when it opens a PR; a push to main since makes that answer stale.
      if (mergeability === 'known') await commitOnBranch(gitRoot, BED_REPO, { branch: 'main', files: { [`main-${n}.txt`]: 'x\n' } });
      const pr = await new LocalGitHost({ root: gitRoot }).getPullRequest(BED_REPO, n, { mergeability });
      if (!pr) throw new Error(`PR ${n} missing`);
      await api.execute(stream, { type: 'SubmitPullRequest', pr }, meta);
      return head;
    },
    close: async () => {
      await host.close();
      await statuses.close();
      await store.close();
      await removeTempDir(dir);
    },
  };
};
export type LocalBed = Awaited<ReturnType<typeof localBed>>;
