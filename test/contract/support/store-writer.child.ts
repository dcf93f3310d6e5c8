/**
 * A separate OS process writing to a shared event store (SQLite file or PostgreSQL), driven through
 * the Writer of store-writer.ts. Usage: tsx store-writer.child.ts '<json ChildPlan>'
 * Prints `pid <n>`, then `ready`, waits for a line on stdin, then one `ack <json>` per append that
 * returned (so the parent knows which appends were acknowledged), then `done` when finished.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { createEventStore, type EventStoreConfig } from '../../../libs/eventstore/src/factory';
import { WrongExpectedRevisionError, type ExpectedRevision } from '../../../libs/eventstore/src/port';

export interface ChildPlan {
  store: EventStoreConfig;
  tag: string;
  streams: string[];
  eventsPerAppend: number;
  /** Appends to make; null keeps appending until the process is killed. */
  appends: number | null;
}

export interface Ack {
  stream: string;
  appendNo: number;
  eventIds: string[];
  nextRevision: number;
  position: string;
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2] ?? '') as ChildPlan;
  const store = await createEventStore(plan.store);
  say(`pid ${process.pid}`);
  say('ready');
  const stdin = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => stdin.once('line', () => resolve()));
  stdin.close();

  const expected = new Map<string, ExpectedRevision>();
  for (let appendNo = 0; plan.appends === null || appendNo < plan.appends; appendNo++) {
    const stream = plan.streams[appendNo % plan.streams.length] as string;
    const events = Array.from({ length: plan.eventsPerAppend }, (_, n) => ({
      eventId: randomUUID(),
      type: 'ChildWrote',
      data: { tag: plan.tag, appendNo, n },
      metadata: { schemaVersion: 1, actor: plan.tag, correlationId: randomUUID(), at: new Date(0).toISOString() },
    }));
    for (;;) {
      try {
        const result = await store.append(stream, events, expected.get(stream) ?? 'no_stream');
        expected.set(stream, result.nextRevision);
        const ack: Ack = {
          stream,
          appendNo,
          eventIds: events.map((e) => e.eventId),
          nextRevision: result.nextRevision,
          position: String(result.position),
        };
        say(`ack ${JSON.stringify(ack)}`);
        break;
      } catch (err) {
        // The other process got there first: catch up on its revision and try again.
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        expected.set(stream, err.actual);
      }
    }
  }
  await store.close();
  say('done');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
