/**
 * A separate OS process reporting commit statuses through the event store (SQLite file or
 * PostgreSQL), as a CI runner or `railyard status set` on another node would.
 * Usage: tsx status-writer.child.ts '<json StatusWriterPlan>'; exits 0 once every status is stored.
 */
import type { RepoRef } from '../../../libs/domain/src';
import { createEventStore, type EventStoreConfig } from '../../../libs/eventstore/src/factory';
import { EventStoreCommitStatusStore } from '../../../libs/githost/src/statuses/event-store-statuses';

export interface StatusWriterPlan {
  store: EventStoreConfig;
  repo: RepoRef;
  sha: string;
  contexts: string[];
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2] ?? '') as StatusWriterPlan;
  const eventStore = await createEventStore(plan.store);
  const statuses = new EventStoreCommitStatusStore({ eventStore });
  await Promise.all(plan.contexts.map((context) => statuses.set(plan.repo, plan.sha, { context, state: 'success' })));
  await statuses.close();
  await eventStore.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
