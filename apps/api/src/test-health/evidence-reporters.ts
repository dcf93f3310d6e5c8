import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventStore } from '@railyard/eventstore';
import { TEST_HEALTH_EVENT_SCHEMA_VERSION, testEvidenceStreamOf, type RepoRef, type TestEvidenceReportersSet } from '@railyard/testhealth';
import { ApiError } from '../http/errors';
import type { WriteMeta } from './writer';

/**
 * A repository's evidence-reporters setting (docs/test-health.md §4, "Who may upload evidence"), kept
 * in its own small stream: the evaluator reads it whole before each evaluation, so every API replica
 * judges with the setting as recorded, with no read model to wait for.
 */
export class EvidenceReporters {
  constructor(private readonly eventStore: EventStore) {}

  /** The reporters whose uploads count as evidence; null: every upload counts (the default). */
  async of(repo: RepoRef): Promise<string[] | null> {
    return (await this.read(repo)).reporters;
  }

  /** Records the setting unless it is already so; answers whether it changed. */
  async set(repo: RepoRef, reporters: string[] | null, meta: WriteMeta, at: string): Promise<boolean> {
    const current = await this.read(repo);
    if (JSON.stringify(current.reporters) === JSON.stringify(reporters)) return false;
    const event: TestEvidenceReportersSet = {
      type: 'TestEvidenceReportersSet',
      data: { repo, reporters, previous: current.reporters, at },
    };
    try {
      await this.eventStore.append(
        testEvidenceStreamOf(repo),
        [
          {
            eventId: randomUUID(),
            type: event.type,
            data: event.data,
            metadata: { schemaVersion: TEST_HEALTH_EVENT_SCHEMA_VERSION, actor: meta.actor, correlationId: meta.correlationId, at },
          },
        ],
        current.revision ?? 'no_stream',
      );
    } catch (err) {
      // Two admins at once: the second must see the first's setting before replacing it.
      if (err instanceof WrongExpectedRevisionError)
        throw new ApiError(409, 'CONCURRENT_UPDATE', 'the evidence reporters changed meanwhile; read them and try again');
      throw err;
    }
    return true;
  }

  private async read(repo: RepoRef): Promise<{ reporters: string[] | null; revision: number | null }> {
    const events = await this.eventStore.readStream(testEvidenceStreamOf(repo));
    const last = events[events.length - 1];
    if (!last) return { reporters: null, revision: null };
    return { reporters: (last.data as TestEvidenceReportersSet['data']).reporters, revision: last.revision };
  }
}
