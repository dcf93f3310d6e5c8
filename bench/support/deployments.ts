import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createEventStore, type EventStoreConfig } from '@railyard/eventstore';
import { startChild, type Child } from './processes';

export interface Deployment {
  /** Base URL of the API. */
  url: string;
  token: string;
  /** The event log the deployment writes. */
  eventStore: EventStoreConfig;
  /** False once any of its processes has exited: a case that ran against a dead server measured nothing. */
  alive(): boolean;
  /** CPU seconds all of its processes have used so far. */
  cpuSeconds(): number;
  /** The same, per process (distributed: `projector` and `api`). */
  cpuSecondsByProcess(): Record<string, number>;
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  dataDir: string;
  gitRoot: string;
  /** stdout/stderr of each process, named after it, go into this directory. */
  logDir: string;
  label: string;
  sync?: 'full' | 'normal';
  /** PostgreSQL instead of the SQLite file in the data dir. */
  postgres?: { url: string; schema: string };
  /** The embedded merge engine; off isolates the API's own write path (the engine has its own benchmark). */
  engine?: boolean;
  nodeFlags?: string[];
  /** Run the compiled build in `dist/` (as `npm start` does) rather than the sources through tsx. */
  compiled?: boolean;
  /** More settings for its processes (RAILYARD_* variables), over the ones every deployment gets. */
  env?: NodeJS.ProcessEnv;
}

/** The position of the last event in a deployment's log: what a run appended is the difference. */
export const headOf = async (config: EventStoreConfig): Promise<bigint> => {
  const store = await createEventStore(config);
  try {
    return (await store.headPosition()) ?? 0n;
  } finally {
    await store.close();
  }
};

/** A fresh admin token per deployment, handed over in the environment only (never logged, never written). */
const tokenEnv = (): { token: string; env: string } => {
  const token = randomBytes(24).toString('base64url');
  return { token, env: `bench:${token}:admin` };
};

const commonEnv = (opts: DeploymentOptions, tokens: string): NodeJS.ProcessEnv => ({
  PORT: '0',
  RAILYARD_DATA_DIR: opts.dataDir,
  RAILYARD_GIT_ROOT: opts.gitRoot,
  RAILYARD_API_TOKENS: tokens,
  // A standalone API requires it (docs/security.md); fresh per deployment like the token.
  RAILYARD_PAGE_TOKEN_SECRET: randomBytes(24).toString('base64url'),
  RAILYARD_SQLITE_SYNC: opts.sync ?? 'full',
  RAILYARD_ENGINE: opts.engine === false ? 'off' : 'on',
  // As shipped: every request writes an access-log line (and readiness is read from the info log).
  RAILYARD_LOG_LEVEL: 'info',
  ...(opts.postgres ? { RAILYARD_POSTGRES_URL: opts.postgres.url, RAILYARD_POSTGRES_SCHEMA: opts.postgres.schema } : {}),
  ...opts.env,
});

const eventStoreOf = (opts: DeploymentOptions): EventStoreConfig =>
  opts.postgres ? { kind: 'postgres', ...opts.postgres } : { kind: 'sqlite', file: path.join(opts.dataDir, 'events.sqlite') };

/** `npm start`: the embedded single process (SQLite or PostgreSQL events, in-memory read models, in-process projector). */
export const startEmbedded = async (opts: DeploymentOptions): Promise<Deployment> => {
  const { token, env } = tokenEnv();
  const server = await startChild({
    script: 'apps/server/src/main.ts',
    env: commonEnv(opts, env),
    logFile: path.join(opts.logDir, `${opts.label}-server.log`),
    ready: /"message":"railyard listening"/,
    nodeFlags: opts.nodeFlags,
    compiled: opts.compiled,
  });
  return {
    url: server.url,
    token,
    eventStore: eventStoreOf(opts),
    alive: () => server.running(),
    cpuSeconds: () => server.cpuSeconds(),
    cpuSecondsByProcess: () => ({ server: server.cpuSeconds() }),
    stop: () => server.stop(),
  };
};

/**
 * The distributed shape on one machine: the stateless API process and a projector process sharing
 * the event log (the SQLite file, or PostgreSQL when given), with the read models in Redis under
 * their own namespace.
 */
export const startDistributed = async (opts: DeploymentOptions & { redisUrl: string; namespace: string }): Promise<Deployment> => {
  const { token, env } = tokenEnv();
  const shared = {
    ...commonEnv(opts, env),
    RAILYARD_REDIS_URL: opts.redisUrl,
    RAILYARD_REDIS_NAMESPACE: opts.namespace,
    RAILYARD_EVENTSTORE: opts.postgres ? 'postgres' : 'sqlite',
  };
  const children: Child[] = [];
  const names: string[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await child.stop();
  };
  try {
    names.push('projector', 'api');
    children.push(
      await startChild({
        script: 'apps/projector/src/main.ts',
        env: shared,
        logFile: path.join(opts.logDir, `${opts.label}-projector.log`),
        ready: /"message":"projector started"/,
        nodeFlags: opts.nodeFlags,
        compiled: opts.compiled,
      }),
    );
    const api = await startChild({
      script: 'apps/api/src/main.ts',
      env: shared,
      logFile: path.join(opts.logDir, `${opts.label}-api.log`),
      ready: /"message":"railyard api listening"/,
      nodeFlags: opts.nodeFlags,
      compiled: opts.compiled,
    });
    children.push(api);
    return {
      url: api.url,
      token,
      eventStore: eventStoreOf(opts),
      alive: () => children.every((c) => c.running()),
      cpuSeconds: () => children.reduce((sum, c) => sum + c.cpuSeconds(), 0),
      cpuSecondsByProcess: () => Object.fromEntries(children.map((c, i) => [names[i] ?? `process${i}`, c.cpuSeconds()])),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
};
