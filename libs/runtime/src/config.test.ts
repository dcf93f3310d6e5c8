import path from 'node:path';
import { loadConfig } from './config';

describe('loadConfig', () => {
  it('when nothing is set, then every process shape gets the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      gitRoot: path.resolve('./data/git'),
      eventStore: { kind: 'sqlite', file: path.resolve('./data/events.sqlite'), synchronous: 'full' },
      ci: {
        concurrency: 2,
        killGraceMs: 5000,
        sandbox: 'auto',
        network: 'none',
        niceness: 10,
        hiddenPaths: [],
        limits: { processes: 1024, memoryMib: 4096, cpus: 2, diskMib: 4096, logMib: 64 },
        cgroup: 'auto',
      },
      testHealth: { orgSlug: 'railyard', parseWorkers: 1, maxQueuedParses: 8, sweepMinutes: 60, maxRunsPerTest: 300, retentionDays: 60 },
      engine: { enabled: true, tickMs: 1000, verifyMs: 30_000, leaseTtlMs: 10_000, mergeabilityPerSecond: 10 },
      projector: { batchSize: 500, leaseTtlMs: 10_000, leaseRetryMs: 250 },
    });
    expect(config.publicUrl).toBeUndefined();
    expect(config.testHealth.pageTokenSecret).toBeUndefined();
  });

  it('when only the data dir is set, then the git root and the SQLite file follow it', () => {
    const config = loadConfig({ RAILYARD_DATA_DIR: '/srv/railyard' });
    expect(config).toMatchObject({ gitRoot: '/srv/railyard/git', eventStore: { file: '/srv/railyard/events.sqlite' } });
    expect(loadConfig({ RAILYARD_DATA_DIR: '/srv/railyard', RAILYARD_GIT_ROOT: '/repos' }).gitRoot).toBe('/repos');
  });

  it('when the public URL has trailing slashes, then CI and test health get it without them', () => {
    const config = loadConfig({ RAILYARD_PUBLIC_URL: 'https://railyard.example.com/' });
    expect([config.publicUrl, config.ci.publicUrl, config.testHealth.publicUrl]).toEqual(Array(3).fill('https://railyard.example.com'));
  });

  it('when the sandbox is turned off and the network on, then the CI settings say so', () => {
    expect(loadConfig({ RAILYARD_CI_SANDBOX: 'off', RAILYARD_CI_NETWORK: 'host' }).ci).toMatchObject({ sandbox: 'off', network: 'host' });
  });

  it('when a check’s limits are set, then the CI settings carry them, and a bad one is refused naming it', () => {
    const config = loadConfig({
      RAILYARD_CI_MAX_PROCESSES: '256',
      RAILYARD_CI_MEMORY_MIB: '2048',
      RAILYARD_CI_CPUS: '1.5',
      RAILYARD_CI_DISK_MIB: '1024',
      RAILYARD_CI_LOG_MIB: '8',
      RAILYARD_CI_CGROUP: '/sys/fs/cgroup/railyard.slice/ci',
      RAILYARD_CI_SANDBOX: 'unshare',
    });
    expect(config.ci).toMatchObject({
      limits: { processes: 256, memoryMib: 2048, cpus: 1.5, diskMib: 1024, logMib: 8 },
      cgroup: '/sys/fs/cgroup/railyard.slice/ci',
      sandbox: 'unshare',
    });
    expect(() => loadConfig({ RAILYARD_CI_CPUS: 'two' })).toThrow(/RAILYARD_CI_CPUS must be a number from 0 to 1024/);
    expect(() => loadConfig({ RAILYARD_CI_MAX_PROCESSES: '3' })).toThrow(/RAILYARD_CI_MAX_PROCESSES must be an integer from 16/);
  });

  it('when Railyard sits behind a TLS proxy, then the proxies it trusts and the cookie setting reach the API settings', () => {
    expect(loadConfig({})).toMatchObject({ secureCookies: 'auto' });
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ RAILYARD_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback,10.0.0.0/8');
    expect(loadConfig({ RAILYARD_TRUST_PROXY: '1', RAILYARD_SECURE_COOKIES: 'always' })).toMatchObject({
      trustProxy: 1,
      secureCookies: 'always',
    });
    expect(() => loadConfig({ RAILYARD_TRUST_PROXY: 'true' })).toThrow(/RAILYARD_TRUST_PROXY must be a number of hops/);
    expect(() => loadConfig({ RAILYARD_SECURE_COOKIES: 'yes' })).toThrow(/RAILYARD_SECURE_COOKIES/);
  });

  it('when the API tokens live in a file, then that file is hidden from checks', () => {
    expect(loadConfig({ RAILYARD_API_TOKENS_FILE: '/etc/railyard/tokens' }).ci.hiddenPaths).toEqual(['/etc/railyard/tokens']);
  });

  it('when the engine is switched off, then the embedded server leaves the queues alone', () => {
    expect(loadConfig({ RAILYARD_ENGINE: 'OFF' }).engine.enabled).toBe(false);
  });

  it.each([
    [{ RAILYARD_CI_SANDBOX: 'none' }, /RAILYARD_CI_SANDBOX must be one of auto, bwrap, unshare, off/],
    [{ RAILYARD_CI_NETWORK: 'on' }, /RAILYARD_CI_NETWORK must be one of none, host/],
    [{ RAILYARD_ENGINE_TICK_MS: 'fast' }, /RAILYARD_ENGINE_TICK_MS must be an integer from 10/],
    [{ RAILYARD_ENGINE_LEASE_TTL_MS: '5' }, /RAILYARD_ENGINE_LEASE_TTL_MS must be an integer from 100/],
    [{ RAILYARD_PROJECTOR_BATCH_SIZE: '0' }, /RAILYARD_PROJECTOR_BATCH_SIZE/],
    [{ PORT: '70000' }, /PORT must be an integer from 0 to 65535/],
    [{ RAILYARD_PUBLIC_URL: 'railyard.example.com' }, /RAILYARD_PUBLIC_URL must be an http\(s\) URL/],
    [{ RAILYARD_ORG_SLUG: 'no spaces' }, /RAILYARD_ORG_SLUG must be letters/],
    [{ RAILYARD_PAGE_TOKEN_SECRET: 'short' }, /RAILYARD_PAGE_TOKEN_SECRET must be at least 16 characters/],
    [{ RAILYARD_TEST_HISTORY_DAYS: '0' }, /RAILYARD_TEST_HISTORY_DAYS must be an integer from 1 to 3650/],
  ])('when %j is set, then the start is refused with the variable named', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('loadConfig: readiness and metrics settings', () => {
  it('when nothing is set, then the lag limit is 10 s and there is no metrics port', () => {
    const config = loadConfig({});
    expect(config.projectionMaxLagMs).toBe(10_000);
    expect(config.metricsPort).toBeUndefined();
    expect(config.apiTokensFile).toBeUndefined();
  });

  it('when they are set, then they are used, port 0 included (any free port)', () => {
    expect(loadConfig({ RAILYARD_PROJECTION_MAX_LAG_MS: '2500', RAILYARD_METRICS_PORT: '9464' })).toMatchObject({
      projectionMaxLagMs: 2500,
      metricsPort: 9464,
    });
    expect(loadConfig({ RAILYARD_METRICS_PORT: '0' }).metricsPort).toBe(0);
  });

  it('when they are unusable, then it says which', () => {
    expect(() => loadConfig({ RAILYARD_PROJECTION_MAX_LAG_MS: '10' })).toThrow(/RAILYARD_PROJECTION_MAX_LAG_MS/);
    expect(() => loadConfig({ RAILYARD_METRICS_PORT: 'http' })).toThrow(/RAILYARD_METRICS_PORT/);
  });

  it('when webhook secret keys are set, then the sealing key comes first, and a bad one is refused without echoing it', () => {
    const k1 = Buffer.alloc(32, 1).toString('base64');
    const k2 = Buffer.alloc(32, 2).toString('base64');
    const keys = loadConfig({ RAILYARD_WEBHOOKS_SECRET_KEYS: `2026b:${k2}, 2026a:${k1}` }).webhooks.secretKeys;
    expect(keys.map((k) => [k.id, k.key.length, k.key[0]])).toEqual([
      ['2026b', 32, 2],
      ['2026a', 32, 1],
    ]);
    expect(loadConfig({}).webhooks.secretKeys).toEqual([]);
    const short = Buffer.alloc(16, 3).toString('base64');
    expect(() => loadConfig({ RAILYARD_WEBHOOKS_SECRET_KEYS: `k:${short}` })).toThrow(
      /RAILYARD_WEBHOOKS_SECRET_KEYS.*key "k" must be 32 bytes/,
    );
    expect(() => loadConfig({ RAILYARD_WEBHOOKS_SECRET_KEYS: `k:${short}` })).not.toThrow(new RegExp(short.slice(0, 12)));
    expect(() => loadConfig({ RAILYARD_WEBHOOKS_SECRET_KEYS: `a:${k1},a:${k2}` })).toThrow(/same id/);
    expect(() => loadConfig({ RAILYARD_WEBHOOKS_SECRET_KEYS: k1 })).toThrow(/id:base64key/);
  });
});
