import { deserialize, serialize } from 'node:v8';
import { QUEUE_STATE_SCHEMA, queueStateBody, queueStateOf, type QueueState, type QueueStateBody } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import type { Logger } from '@railyard/observability';
import type { SavableQueueWriter } from '@railyard/runtime';

/** What the head row holds: raise it when its fields change, and an older row is ignored (the log is read from the start). */
export const ENGINE_SNAPSHOT_SCHEMA = 1;

/** How far the engine's subscription had handled the log, and every queue it knew then. */
export interface EngineSnapshotHead {
  schema: number;
  position: bigint;
  /** The id of the event at `position`: another log, or this one restored from an older backup, does not hold it there. */
  eventId: string;
  queues: string[];
}

/** One queue stream's folded state (libs/domain state-snapshot.ts), with the revision it covers and the id of the event there. */
export interface EngineSnapshotStream {
  streamId: string;
  schema: number;
  revision: number;
  eventId: string;
  body: Buffer;
}

/**
 * Where the engine's snapshot is kept (docs/decisions.md D292): beside the SQLite log in the embedded
 * server, in Redis for standalone engines. A save writes the streams before the head, or both at once:
 * a stream row is right on its own (its revision is checked against the log when it is used), and the
 * head is the engine's checkpoint, so a crash between the two only means a longer tail to read.
 */
export interface EngineSnapshotStore {
  load(): Promise<{ head: EngineSnapshotHead | null; streams: EngineSnapshotStream[] }>;
  save(head: EngineSnapshotHead, streams: EngineSnapshotStream[]): Promise<void>;
  close(): Promise<void>;
}

export interface EngineSnapshotSettings {
  store: EngineSnapshotStore;
  /** A new snapshot once the engine has handled this many positions past the last one. */
  everyEvents: number;
  checkMs?: number;
}

/** Where a start resumed from, and why not from a snapshot when it did not. */
export interface EngineResume {
  position: bigint | null;
  queues: string[];
  why: 'resumed' | 'none' | 'older-schema' | 'not-this-log';
  /** Stream states taken back (each still confirmed against its stream before use), and those left to be folded again. */
  streams: number;
  olderStreams: number;
}

const eventIdAt = async (events: EventStore, position: bigint): Promise<string | undefined> => {
  const [event] = await events.readAll(position - 1n, 1);
  return event?.position === position ? event.eventId : undefined;
};

/** Reads the snapshot and hands its stream states to the writer; the caller subscribes after `position` and drives `queues`. */
export const resumeEngine = async (
  store: EngineSnapshotStore,
  events: EventStore,
  writer: SavableQueueWriter<unknown>,
): Promise<EngineResume> => {
  const { head, streams } = await store.load();
  const none = { position: null, queues: [], streams: 0, olderStreams: 0 };
  if (!head) return { ...none, why: 'none' };
  if (head.schema !== ENGINE_SNAPSHOT_SCHEMA) return { ...none, why: 'older-schema' };
  if ((await eventIdAt(events, head.position)) !== head.eventId) return { ...none, why: 'not-this-log' };
  let taken = 0;
  for (const s of streams) {
    if (s.schema !== QUEUE_STATE_SCHEMA) continue;
    let state: QueueState;
    try {
      state = queueStateOf(deserialize(s.body) as QueueStateBody);
    } catch {
      continue; // folded again from its stream
    }
    writer.resume({ streamId: s.streamId, revision: s.revision, eventId: s.eventId, state });
    taken++;
  }
  return { position: head.position, queues: head.queues, why: 'resumed', streams: taken, olderStreams: streams.length - taken };
};

/** What the engine tells the saver: how far it has handled the log, and the queues it knows. */
export interface EngineProgress {
  position: bigint;
  eventId: string;
  queues: () => string[];
}

/**
 * Saves the engine's snapshot whenever it has handled `everyEvents` positions past the last, checked
 * on a timer, and at stop. Only the stream states that changed since the last save are copied and
 * written, each in the same turn as the head's position is read.
 */
export const scheduleEngineSnapshots = (
  settings: EngineSnapshotSettings,
  writer: SavableQueueWriter<unknown>,
  progress: () => EngineProgress | null,
  logger: Logger,
  lastAt: bigint | null,
): { stop(): Promise<void> } => {
  let last = lastAt;
  let savedVersion = 0;
  let writing: Promise<void> = Promise.resolve();
  const due = (every: bigint): EngineProgress | null => {
    const p = progress();
    return p && (last === null || p.position - last >= every) ? p : null;
  };
  const save = async (p: EngineProgress): Promise<void> => {
    const started = performance.now();
    // One turn: the head's queues and every copied state are taken together.
    const head: EngineSnapshotHead = { schema: ENGINE_SNAPSHOT_SCHEMA, position: p.position, eventId: p.eventId, queues: p.queues() };
    const { version, streams } = writer.saved(savedVersion, (s) => serialize(queueStateBody(s)));
    const rows = streams.map((s) => ({ ...s, schema: QUEUE_STATE_SCHEMA }));
    try {
      await settings.store.save(head, rows);
      last = p.position;
      savedVersion = version;
      logger.info('engine snapshot written', {
        position: p.position.toString(),
        queues: head.queues.length,
        streams: rows.length,
        bytes: rows.reduce((n, r) => n + r.body.length, 0),
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      logger.error('writing the engine snapshot failed', { error: err instanceof Error ? err.message : String(err) });
    }
  };
  const timer = setInterval(() => {
    writing = writing.then(() => {
      const p = due(BigInt(settings.everyEvents));
      return p ? save(p) : undefined;
    });
  }, settings.checkMs ?? 5_000);
  timer.unref();
  return {
    /** A clean stop saves what was handled since the last snapshot, so the next start reads nothing again. */
    async stop() {
      clearInterval(timer);
      await writing;
      const p = due(1n);
      if (p) await save(p);
    },
  };
};
