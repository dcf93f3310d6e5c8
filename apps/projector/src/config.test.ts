import path from 'node:path';
import { blobStoreConfigOf, loadConfig } from '@railyard/runtime';
import { projectorConfigFromEnv } from './config';

describe('projectorConfigFromEnv', () => {
  it('when nothing is set, then it uses SQLite under ./data, local Redis and namespace rm1, a 10 s lease a standby tries every 250 ms, and no metrics port', () => {
    expect(projectorConfigFromEnv({})).toEqual({
      ignoredSettings: [],
      eventStore: { kind: 'sqlite', file: path.resolve('./data', 'events.sqlite'), synchronous: 'full', handOver: true },
      blobs: { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: 'ry:{rm1}:blob:' },
      redisUrl: 'redis://127.0.0.1:6379',
      namespace: 'rm1',
      batchSize: 500,
      leaseTtlMs: 10_000,
      leaseRetryMs: 250,
      metricsHost: '127.0.0.1',
      testHealthLimits: { maxRunsPerTest: 300, retentionDays: 60 },
    });
  });

  it('when a data dir, Redis and namespace are given, then they are used', () => {
    const config = projectorConfigFromEnv({
      RAILYARD_DATA_DIR: '/var/lib/railyard',
      RAILYARD_REDIS_URL: 'redis://cache:6380',
      RAILYARD_REDIS_NAMESPACE: 'rm2',
    });
    expect(config).toMatchObject({
      eventStore: { kind: 'sqlite', file: '/var/lib/railyard/events.sqlite' },
      redisUrl: 'redis://cache:6380',
      namespace: 'rm2',
    });
  });

  it('when KurrentDB is chosen with its URL, then the kurrent store is configured', () => {
    const config = projectorConfigFromEnv({ RAILYARD_EVENTSTORE: 'kurrent', RAILYARD_KURRENTDB_URL: 'kurrentdb://db:2113?tls=false' });
    expect(config.eventStore).toEqual({ kind: 'kurrent', url: 'kurrentdb://db:2113?tls=false' });
  });

  it('when RAILYARD_POSTGRES_URL is set, then PostgreSQL is used, in schema railyard unless RAILYARD_POSTGRES_SCHEMA says otherwise', () => {
    const url = 'postgres://railyard@db:5432/railyard';
    expect(projectorConfigFromEnv({ RAILYARD_POSTGRES_URL: url }).eventStore).toEqual({
      kind: 'postgres',
      url,
      schema: 'railyard',
      readAhead: true,
    });
    expect(projectorConfigFromEnv({ RAILYARD_POSTGRES_URL: url, RAILYARD_POSTGRES_SCHEMA: 'ry2' }).eventStore).toMatchObject({
      schema: 'ry2',
    });
  });

  it('when PostgreSQL is chosen without a URL, or both networked stores are given without a choice, then it refuses to start', () => {
    expect(() => projectorConfigFromEnv({ RAILYARD_EVENTSTORE: 'postgres' })).toThrow(/RAILYARD_POSTGRES_URL/);
    expect(() =>
      projectorConfigFromEnv({ RAILYARD_POSTGRES_URL: 'postgres://db/railyard', RAILYARD_KURRENTDB_URL: 'kurrentdb://db:2113' }),
    ).toThrow(/choose one with RAILYARD_EVENTSTORE/);
    expect(
      projectorConfigFromEnv({
        RAILYARD_EVENTSTORE: 'kurrent',
        RAILYARD_POSTGRES_URL: 'postgres://db/railyard',
        RAILYARD_KURRENTDB_URL: 'kurrentdb://db:2113',
      }).eventStore,
    ).toEqual({ kind: 'kurrent', url: 'kurrentdb://db:2113' });
  });

  it('when KurrentDB is chosen without a URL, then it refuses to start', () => {
    expect(() => projectorConfigFromEnv({ RAILYARD_EVENTSTORE: 'kurrent' })).toThrow(/RAILYARD_KURRENTDB_URL/);
  });

  it('when the event store kind or the batch size is unusable, then it says which', () => {
    expect(() => projectorConfigFromEnv({ RAILYARD_EVENTSTORE: 'mysql' })).toThrow(/RAILYARD_EVENTSTORE/);
    expect(() => projectorConfigFromEnv({ RAILYARD_PROJECTOR_BATCH_SIZE: '0' })).toThrow(/RAILYARD_PROJECTOR_BATCH_SIZE/);
  });
});

describe('projectorConfigFromEnv: lease and metrics settings', () => {
  it('when the lease TTL, retry interval and metrics port are set, then they are used', () => {
    expect(
      projectorConfigFromEnv({
        RAILYARD_PROJECTOR_LEASE_TTL_MS: '3000',
        RAILYARD_PROJECTOR_LEASE_RETRY_MS: '100',
        RAILYARD_METRICS_PORT: '9464',
        RAILYARD_HOST: '0.0.0.0',
      }),
    ).toMatchObject({ leaseTtlMs: 3000, leaseRetryMs: 100, metricsPort: 9464, metricsHost: '0.0.0.0' });
  });
  it('when the retry interval or metrics port is unusable, then it says which', () => {
    expect(() => projectorConfigFromEnv({ RAILYARD_PROJECTOR_LEASE_RETRY_MS: '-1' })).toThrow(/RAILYARD_PROJECTOR_LEASE_RETRY_MS/);
    expect(() => projectorConfigFromEnv({ RAILYARD_METRICS_PORT: '70000' })).toThrow(/RAILYARD_METRICS_PORT/);
  });
});

describe('projectorConfigFromEnv and the other processes', () => {
  it('when RAILYARD_SQLITE_FILE and RAILYARD_SQLITE_SYNC are set, then the projector reads the same store the API writes', () => {
    const config = projectorConfigFromEnv({ RAILYARD_SQLITE_FILE: '/srv/railyard/events.sqlite', RAILYARD_SQLITE_SYNC: 'normal' });
    expect(config.eventStore).toEqual({ kind: 'sqlite', file: '/srv/railyard/events.sqlite', synchronous: 'normal', handOver: true });
  });

  it('when RAILYARD_KURRENTDB_URL is set, then KurrentDB is used, as everywhere else', () => {
    expect(projectorConfigFromEnv({ RAILYARD_KURRENTDB_URL: 'kurrentdb://127.0.0.1:2113?tls=false' }).eventStore).toEqual({
      kind: 'kurrent',
      url: 'kurrentdb://127.0.0.1:2113?tls=false',
    });
  });

  it('when the events are in PostgreSQL, then the projector reads upload blobs from PostgreSQL, where the API writes them, not from Redis', () => {
    const url = 'postgres://railyard@db:5432/railyard';
    const env = { RAILYARD_POSTGRES_URL: url, RAILYARD_POSTGRES_SCHEMA: 'ry2', RAILYARD_REDIS_URL: 'redis://cache:6380' };
    expect(projectorConfigFromEnv(env).blobs).toEqual(blobStoreConfigOf(loadConfig(env)));
    expect(projectorConfigFromEnv(env).blobs).toEqual({ kind: 'postgres', url, schema: 'ry2' });
  });

  it('when Redis is left to its default, then the projector looks for blobs in the same Redis the API defaults to', () => {
    expect(projectorConfigFromEnv({ RAILYARD_REDIS_NAMESPACE: 'rm3' }).blobs).toEqual({
      kind: 'redis',
      url: 'redis://127.0.0.1:6379',
      prefix: 'ry:{rm3}:blob:',
    });
  });
});
