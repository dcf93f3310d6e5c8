import { randomUUID } from 'node:crypto';
import type { EventStore } from '@railyard/eventstore';
import type { Logger } from '@railyard/observability';
import type { TestHealthReadModels } from '@railyard/readmodels';
import { TEST_HEALTH_EVENT_SCHEMA_VERSION, testsStreamOf, type RepoRef, type TestHealthEvent } from '@railyard/testhealth';

export interface Clock {
  now: () => Date;
}

export interface WriteMeta {
  actor: string;
  correlationId: string;
}

/** Events per append: well under any store's batch limit, whatever the number of changed tests. */
const APPEND_CHUNK = 500;

/**
 * Appends test-health facts to the repository's `tests-<repoId>` stream and waits (bounded) until the
 * test-health read models hold them, so a client that uploads and then lists sees its upload.
 * Nothing is decided against the stream's state: uploads are facts as they arrived, and the other
 * events are checked against the read models by their callers (a stream holding every run of every
 * test is far too large to fold per command).
 */
export class TestHealthWriter {
  constructor(
    private readonly eventStore: EventStore,
    private readonly readModels: TestHealthReadModels,
    private readonly logger: Logger,
    private readonly options: { readYourWritesTimeoutMs?: number } = {},
  ) {}

  async append(repo: RepoRef, events: readonly TestHealthEvent[], meta: WriteMeta): Promise<bigint | null> {
    let position: bigint | null = null;
    for (let i = 0; i < events.length; i += APPEND_CHUNK) {
      const chunk = events.slice(i, i + APPEND_CHUNK).map((e) => ({
        eventId: randomUUID(),
        type: e.type,
        data: e.data,
        metadata: { schemaVersion: TEST_HEALTH_EVENT_SCHEMA_VERSION, actor: meta.actor, correlationId: meta.correlationId, at: e.data.at },
      }));
      position = (await this.eventStore.append(testsStreamOf(repo), chunk, 'any')).position;
    }
    if (position !== null) {
      const timeoutMs = this.options.readYourWritesTimeoutMs ?? 5000;
      if (!(await this.readModels.waitFor(position, timeoutMs)))
        this.logger.warn('test-health read models did not reach a write in time', { position: String(position), timeoutMs });
    }
    return position;
  }
}
