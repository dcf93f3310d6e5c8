import type { BlobStore } from './blob-port';
import { FsBlobStore } from './blob/fs-blob-store';
import { MemoryBlobStore } from './blob/memory-blob-store';
import { RedisBlobStore } from './blob/redis-blob-store';
import { KurrentEventStore } from './kurrent/kurrent-event-store';
import { MemoryEventStore } from './memory/memory-event-store';
import type { EventStore } from './port';
import type { StreamMaxAge } from './retention-port';
import { PostgresBlobStore } from './postgres/postgres-blob-store';
import { PostgresEventStore } from './postgres/postgres-event-store';
import { SqliteEventStore, type SqliteSynchronous } from './sqlite/sqlite-event-store';

export type EventStoreConfig =
  | { kind: 'memory' }
  | { kind: 'sqlite'; file: string; synchronous?: SqliteSynchronous; busyTimeoutMs?: number; handOver?: boolean }
  | { kind: 'kurrent'; url: string; streamMaxAge?: StreamMaxAge }
  | { kind: 'postgres'; url: string; schema?: string; readAhead?: boolean };

export type BlobStoreConfig =
  | { kind: 'memory' }
  | { kind: 'fs'; dir: string }
  | { kind: 'redis'; url: string; prefix?: string }
  | { kind: 'postgres'; url: string; schema?: string };

/** Opens the configured event store; async so an adapter may connect or migrate before use. */
export async function createEventStore(config: EventStoreConfig): Promise<EventStore> {
  switch (config.kind) {
    case 'memory':
      return new MemoryEventStore();
    case 'sqlite':
      return new SqliteEventStore({
        file: config.file,
        synchronous: config.synchronous,
        busyTimeoutMs: config.busyTimeoutMs,
        handOver: config.handOver,
      });
    case 'kurrent':
      return new KurrentEventStore({ url: config.url, ...(config.streamMaxAge ? { streamMaxAge: config.streamMaxAge } : {}) });
    case 'postgres':
      return PostgresEventStore.open({ url: config.url, schema: config.schema, readAhead: config.readAhead });
  }
}

export async function createBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  switch (config.kind) {
    case 'memory':
      return new MemoryBlobStore();
    case 'fs':
      return new FsBlobStore({ dir: config.dir });
    case 'redis':
      return new RedisBlobStore({ url: config.url, prefix: config.prefix });
    case 'postgres':
      return PostgresBlobStore.open({ url: config.url, schema: config.schema });
  }
}
