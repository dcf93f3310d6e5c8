import { randomUUID } from 'node:crypto';
import type { RepoRef } from '@railyard/domain';
import type { EventStore, NewEvent, RecordedEvent, Subscription } from '@railyard/eventstore';
import type { CommitStatus, CommitStatusInput, CommitStatusListener, CommitStatusStore } from './port';
import {
  COMMIT_STATUS_REPORTED,
  foldReports,
  foldStatuses,
  reportOf,
  STATUS_SCHEMA_VERSION,
  statusStreamOf,
  type CommitStatusReported,
} from './status-events';
import { validateRepoName, validateStatusInput } from './validate';

export interface EventStoreCommitStatusStoreOptions {
  eventStore: EventStore;
  /**
   * Throws (GitHostError REPO_NOT_FOUND) for a repository the code host does not have, so a status
   * for an unknown repository is refused as it was before statuses became events.
   */
  assertRepo?: (repo: RepoRef) => Promise<void>;
  /** Statuses an older version left outside the event store, read beneath the events (D182). */
  legacy?: (repo: RepoRef, sha: string) => Promise<CommitStatus[]>;
  /** Who the events name as their actor: "ci", "api", "cli". */
  actor?: string;
  clock?: () => Date;
  /**
   * Told when the subscription fails for good (after the adapter's own retries), as the engine's
   * own subscription reports it: listeners then hear only this instance's changes, and the engine's
   * tick still re-reads statuses.
   */
  onError?: (err: Error) => void;
}

/**
 * Commit statuses kept as events in the event store (docs/ci.md, "Commit statuses"), so every
 * process sharing the store (SQLite file, PostgreSQL, KurrentDB) reads and hears them with no shared
 * disk. Listeners hear this instance's writes at once and other instances' through the store's
 * subscription.
 */
export class EventStoreCommitStatusStore implements CommitStatusStore {
  /** Marks this instance's events, so its own changes are not announced twice. */
  readonly writerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly listeners = new Set<CommitStatusListener>();
  private readonly clock: () => Date;
  private readonly actor: string;
  private subscription: Subscription | null = null;
  private listening: Promise<void> | null = null;
  private generation = 0;

  constructor(private readonly opts: EventStoreCommitStatusStoreOptions) {
    this.clock = opts.clock ?? (() => new Date());
    this.actor = opts.actor ?? 'ci';
  }

  async set(repo: RepoRef, sha: string, input: CommitStatusInput): Promise<CommitStatus> {
    const clean = validateStatusInput(sha, input);
    validateRepoName(repo);
    await this.opts.assertRepo?.(repo);
    const eventId = randomUUID();
    const data: CommitStatusReported = { repo: { host: repo.host, owner: repo.owner, name: repo.name }, sha, ...clean };
    const event: NewEvent = {
      eventId,
      type: COMMIT_STATUS_REPORTED,
      data,
      metadata: {
        schemaVersion: STATUS_SCHEMA_VERSION,
        actor: this.actor,
        correlationId: eventId,
        at: this.clock().toISOString(),
        writer: this.writerId,
      },
    };
    const stream = statusStreamOf(repo, sha);
    // No expected revision: reports only add, so concurrent writers never conflict (D180).
    const { nextRevision } = await this.opts.eventStore.append(stream, [event], 'any');
    const events = (await this.opts.eventStore.readStream(stream)).filter((e) => e.revision <= nextRevision);
    const stored = foldStatuses(await this.legacyOf(repo, sha), events).find((s) => s.context === clean.context);
    this.emit(repo, sha);
    // Our own event is in what was read, so the context is there.
    return stored as CommitStatus;
  }

  async list(repo: RepoRef, sha: string): Promise<CommitStatus[]> {
    validateStatusInput(sha);
    validateRepoName(repo);
    await this.opts.assertRepo?.(repo);
    return foldStatuses(await this.legacyOf(repo, sha), await this.opts.eventStore.readStream(statusStreamOf(repo, sha)));
  }

  async reports(repo: RepoRef, sha: string): Promise<CommitStatus[]> {
    validateStatusInput(sha);
    validateRepoName(repo);
    await this.opts.assertRepo?.(repo);
    return foldReports(await this.legacyOf(repo, sha), await this.opts.eventStore.readStream(statusStreamOf(repo, sha)));
  }

  onChange(listener: CommitStatusListener): () => void {
    this.listeners.add(listener);
    this.listen();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopListening();
    };
  }

  /** Resolves once other instances' changes are heard (tests and benchmarks wait for it). */
  whenListening(): Promise<void> {
    return this.listening ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.stopListening();
  }

  private listen(): void {
    if (this.listening) return;
    const generation = ++this.generation;
    const failed = (err: Error): void => {
      if (generation === this.generation) this.opts.onError?.(err);
    };
    // Listeners hear of changes made after they subscribed, not of the store's whole history.
    this.listening = this.opts.eventStore.headPosition().then((position) => {
      if (generation !== this.generation) return;
      this.subscription = this.opts.eventStore.subscribe({
        fromPosition: position,
        onEvents: async (events) => {
          if (generation === this.generation) this.announce(events);
        },
        onError: failed,
      });
    }, failed);
  }

  private stopListening(): void {
    this.generation++;
    const subscription = this.subscription;
    this.subscription = null;
    this.listening = null;
    void subscription?.close();
  }

  private announce(events: RecordedEvent[]): void {
    const changed = new Map<string, CommitStatusReported>();
    for (const e of events) {
      const report = reportOf(e);
      if (report && e.metadata.writer !== this.writerId) changed.set(e.streamId, report);
    }
    for (const { repo, sha } of changed.values()) this.emit(repo, sha);
  }

  private legacyOf(repo: RepoRef, sha: string): Promise<CommitStatus[]> {
    return this.opts.legacy ? this.opts.legacy(repo, sha) : Promise.resolve([]);
  }

  private emit(repo: RepoRef, sha: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(repo, sha);
      } catch {
        // A failing listener must not keep the others (or the writer) from hearing about the change.
      }
    }
  }
}
