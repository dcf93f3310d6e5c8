import {
  entryOf,
  evolve,
  initialQueueState,
  isTerminal,
  QUEUE_STREAM_PREFIX,
  type Entry,
  type QueueEvent,
  type QueueState,
  type RepoRef,
  repoSlug,
} from '@railyard/domain';
import type { EventStore, RecordedEvent, Subscription } from '@railyard/eventstore';
import type { GithubApp, GithubLogger, GithubOctokit } from '../github-app';
import { failingChecksOf, renderCheckRun, sameView, type CheckRunView, type Ending } from './check-run-view';

/**
 * Keeps one `Railyard (<base>)` check run per queued PR up to date from the event stream
 * (docs/github.md, "The check run"). It folds every queue stream itself, so it needs nothing but the
 * event store; it writes only what changed, and after a restart it finds the check run already on
 * GitHub and leaves it alone when it says the same thing, so a restart costs reads, not writes.
 *
 * One writer per queue: it publishes a queue's check runs only while `owns(queueId)` (the engine's
 * queue lease; always true in the embedded process).
 */
export interface CheckRunPublisherOptions {
  eventStore: EventStore;
  github: Pick<GithubApp, 'installation' | 'installationIdFor'>;
  /** The host name of this GitHub's repositories in queue ids: other queues are not its business. */
  host: string;
  /** The App's id, to find its own check runs among every App's. */
  appId: number;
  /** RAILYARD_PUBLIC_URL: links in the check run point here; none without it. */
  publicUrl?: string;
  owns?: (queueId: string) => Promise<boolean>;
  logger: GithubLogger;
  now?: () => Date;
  /** After a restart, PRs that ended longer ago than this are not looked at again. */
  recentMs?: number;
  /** Wait after a failed write before the next attempt. */
  retryMs?: number;
  /**
   * Also keep one comment per PR saying the same as the check run, edited in place
   * (RAILYARD_GITHUB_STICKY_COMMENT; off by default), on queues whose `commentsEnabled` is on.
   */
  stickyComments?: boolean;
}

/** Marks Railyard's sticky status comment, so it is found again (and told from people's comments). */
export const STICKY_MARKER = '<!-- railyard:status -->';

export const stickyBody = (view: CheckRunView): string => `${STICKY_MARKER}\n**${view.name}: ${view.title}**\n\n${view.summary}`;

interface Published {
  id: number;
  view: CheckRunView;
}

interface QueueFold {
  state: QueueState;
  endings: Map<number, Ending>;
}

const key = (queueId: string, prNumber: number): string => `${queueId}\n${prNumber}`;

const endingBefore = (s: QueueState, event: QueueEvent, endings: Map<number, Ending>): void => {
  switch (event.type) {
    case 'PrSubmitted':
    case 'TestsRestarted':
      endings.delete(event.data.prNumber);
      break;
    case 'PrMerged':
      endings.set(event.data.prNumber, { merged: { mergeSha: event.data.mergeSha } });
      break;
    case 'PrFailed': {
      const entry = entryOf(s, event.data.prNumber);
      const runId = event.data.testRunId ?? entry?.testRunId;
      const failing = failingChecksOf(runId ? s.runs.get(runId) : undefined);
      endings.set(event.data.prNumber, { failed: { reason: event.data.reason, detail: event.data.detail, failing } });
      break;
    }
    case 'PrCancelled':
      endings.set(event.data.prNumber, { cancelled: { reason: event.data.reason } });
      break;
    default:
  }
};

export class CheckRunPublisher {
  private readonly queues = new Map<string, QueueFold>();
  private readonly dirty = new Set<string>();
  private readonly published = new Map<string, Published>();
  private readonly stickies = new Map<string, { id: number; body: string }>();
  private readonly installations = new Map<string, number | null>();
  private subscription: Subscription | null = null;
  private catchUpUntil: bigint | null = null;
  private caughtUp = false;
  private draining: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly now: () => Date;

  constructor(private readonly o: CheckRunPublisherOptions) {
    this.now = o.now ?? (() => new Date());
  }

  async start(): Promise<void> {
    this.catchUpUntil = await this.o.eventStore.headPosition();
    this.caughtUp = this.catchUpUntil === null;
    this.subscription = this.o.eventStore.subscribe({
      fromPosition: null,
      onEvents: async (events) => this.onEvents(events),
      onError: (err) => this.o.logger.error('check-run publisher subscription failed', { error: err.message }),
    });
  }

  /** Resolves once nothing is waiting to be written (tests). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    await this.subscription?.close();
    await this.idle();
  }

  private async onEvents(events: RecordedEvent[]): Promise<void> {
    for (const e of events) {
      if (e.streamId.startsWith(QUEUE_STREAM_PREFIX)) this.fold(e.streamId.slice(QUEUE_STREAM_PREFIX.length), e);
      if (!this.caughtUp && this.catchUpUntil !== null && e.position >= this.catchUpUntil) this.finishCatchUp();
    }
    if (this.caughtUp) this.kick();
  }

  private fold(queueId: string, e: RecordedEvent): void {
    let q = this.queues.get(queueId);
    if (!q) {
      q = { state: initialQueueState(), endings: new Map() };
      this.queues.set(queueId, q);
    }
    const event = { type: e.type, data: e.data } as QueueEvent;
    endingBefore(q.state, event, q.endings);
    q.state = evolve(q.state, event);
    if (event.type === 'QueueDeleted' || event.type === 'QueueCreated') {
      for (const k of [...this.published.keys()]) if (k.startsWith(`${queueId}\n`)) this.published.delete(k);
    }
    if (!q.state.exists || q.state.repo.host !== this.o.host) return;
    // A change to one PR moves the others' positions: every active entry is looked at, and only a
    // check run whose text changed is written.
    const touched = (e.data as { prNumber?: unknown } | null)?.prNumber;
    if (typeof touched === 'number') this.dirty.add(key(queueId, touched));
    for (const entry of q.state.entries.values()) if (!isTerminal(entry.state)) this.dirty.add(key(queueId, entry.prNumber));
  }

  /** After a restart: PRs that ended long ago keep the check run they have. */
  private finishCatchUp(): void {
    this.caughtUp = true;
    const since = this.now().getTime() - (this.o.recentMs ?? 60 * 60_000);
    for (const k of [...this.dirty]) {
      const entry = this.entryOf(k);
      if (!entry || (isTerminal(entry.state) && Date.parse(entry.stateChangedAt) < since)) this.dirty.delete(k);
    }
  }

  private entryOf(k: string): Entry | undefined {
    const [queueId = '', n = ''] = k.split('\n');
    const state = this.queues.get(queueId)?.state;
    return state && entryOf(state, Number(n));
  }

  private kick(): void {
    if (this.draining || this.stopped) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.dirty.size > 0 && !this.stopped && !this.retry) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.dirty.size > 0 && !this.stopped) {
      const k = this.dirty.values().next().value as string;
      this.dirty.delete(k);
      try {
        await this.publish(k);
      } catch (err) {
        this.dirty.add(k);
        this.o.logger.warn('could not write a check run; trying again', { error: (err as Error).message });
        this.retry = setTimeout(() => {
          this.retry = null;
          this.kick();
        }, this.o.retryMs ?? 5000);
        this.retry.unref();
        return;
      }
    }
  }

  private async publish(k: string): Promise<void> {
    const [queueId = ''] = k.split('\n');
    const q = this.queues.get(queueId);
    const entry = this.entryOf(k);
    if (!q || !entry || !q.state.exists) return;
    if (this.o.owns && !(await this.o.owns(queueId))) return;
    const view = renderCheckRun(q.state, entry, q.endings.get(entry.prNumber) ?? {}, this.o.publicUrl);
    const last = this.published.get(k);
    const stickyDue = this.stickyWanted(q.state) && this.stickies.get(k)?.body !== stickyBody(view);
    if (last && sameView(last.view, view) && !stickyDue) return;
    const octokit = await this.clientFor(q.state.repo);
    if (!octokit) return;
    if (!last || !sameView(last.view, view)) await this.writeCheckRun(octokit, q.state.repo, k, entry.entryId, last, view);
    // After the check run, so a failed comment write is retried without writing the check run again.
    if (this.stickyWanted(q.state)) await this.sticky(octokit, q.state, k, entry.prNumber, view);
  }

  private stickyWanted(s: QueueState): boolean {
    return this.o.stickyComments === true && s.settings.commentsEnabled;
  }

  private async writeCheckRun(
    octokit: GithubOctokit,
    repo: RepoRef,
    k: string,
    entryId: string,
    last: Published | undefined,
    view: CheckRunView,
  ): Promise<void> {
    const current = last && last.view.headSha === view.headSha ? last : await this.find(octokit, repo, view);
    if (current && sameView(current.view, view)) {
      this.published.set(k, current);
      return;
    }
    const fields = {
      status: view.status,
      ...(view.conclusion ? { conclusion: view.conclusion, completed_at: this.now().toISOString() } : {}),
      ...(view.detailsUrl ? { details_url: view.detailsUrl } : {}),
      output: { title: view.title, summary: view.summary },
    };
    // A completed check run is not reopened: a PR queued again gets a new run of the same name, which GitHub shows in its place.
    if (current && current.view.status !== 'completed') {
      await octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        owner: repo.owner,
        repo: repo.name,
        check_run_id: current.id,
        ...fields,
      });
      this.published.set(k, { id: current.id, view });
      return;
    }
    const { data } = await octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      owner: repo.owner,
      repo: repo.name,
      name: view.name,
      head_sha: view.headSha,
      external_id: entryId,
      ...fields,
    });
    this.published.set(k, { id: Number(data.id), view });
  }

  /** The optional sticky comment: one per PR, found by its marker among the App's comments, edited only when its text changes. */
  private async sticky(octokit: GithubOctokit, s: QueueState, k: string, prNumber: number, view: CheckRunView): Promise<void> {
    const body = stickyBody(view);
    const repo = { owner: s.repo.owner, repo: s.repo.name };
    let known = this.stickies.get(k);
    if (!known) {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        ...repo,
        issue_number: prNumber,
        per_page: 100,
      });
      const mine = data.find((c) => c.performed_via_github_app?.id === this.o.appId && (c.body ?? '').startsWith(STICKY_MARKER));
      if (mine) known = { id: Number(mine.id), body: mine.body ?? '' };
    }
    if (known?.body === body) {
      this.stickies.set(k, known);
      return;
    }
    if (known) {
      await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo, comment_id: known.id, body });
      this.stickies.set(k, { id: known.id, body });
      return;
    }
    const { data } = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...repo,
      issue_number: prNumber,
      body,
    });
    this.stickies.set(k, { id: Number(data.id), body });
  }

  private async clientFor(repo: RepoRef): Promise<GithubOctokit | null> {
    const name = repoSlug(repo);
    let id = this.installations.get(name);
    if (id === undefined) {
      id = await this.o.github.installationIdFor(repo.owner, repo.name);
      this.installations.set(name, id);
      if (id === null) this.o.logger.warn('the GitHub App is not installed on a queued repository', { repo: name });
    }
    return id === null ? null : this.o.github.installation(id);
  }

  /** The App's newest check run of this name on the head, as GitHub shows it. */
  private async find(octokit: GithubOctokit, repo: RepoRef, view: CheckRunView): Promise<Published | undefined> {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      owner: repo.owner,
      repo: repo.name,
      ref: view.headSha,
      check_name: view.name,
      app_id: this.o.appId,
      filter: 'latest',
    });
    const run = data.check_runs.find((r) => r.name === view.name && r.app?.id === this.o.appId);
    if (!run) return undefined;
    const status = run.status === 'completed' ? 'completed' : run.status === 'in_progress' ? 'in_progress' : 'queued';
    const conclusion =
      run.conclusion === 'success' || run.conclusion === 'failure' || run.conclusion === 'cancelled' ? run.conclusion : undefined;
    return {
      id: Number(run.id),
      view: {
        name: run.name,
        headSha: run.head_sha,
        status,
        ...(conclusion ? { conclusion } : {}),
        title: run.output.title ?? '',
        summary: run.output.summary ?? '',
        ...(run.details_url ? { detailsUrl: run.details_url } : {}),
      },
    };
  }
}
