import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createServer, type RequestListener, type Server } from 'node:http';
import {
  composeApi,
  githubApiOf,
  openTestHealthStore,
  startRetention,
  testHealthConfigOf,
  type ComposedApi,
  type GithubApiParts,
} from '@railyard/api';
import type { UploadReportsInput } from '@railyard/ci';
import { startEmbeddedEngine } from '@railyard/engine';
import { CheckRunPublisher, GithubHintFeed, openGithub } from '@railyard/github';
import type { RecordedEvent } from '@railyard/eventstore';
import { collectProcessMetrics, createLogger, listenOrExplain, type Logger } from '@railyard/observability';
import { fanOut, runProjector } from '@railyard/projector';
import { isSnapshottable, MemoryMetricsStore } from '@railyard/readmodels';
import {
  apiSettingsOf,
  loadConfig,
  loadTokens,
  openBlobStore,
  openEventStore,
  openGitHost,
  openReadModels,
  type RailyardConfig,
} from '@railyard/runtime';
import type { RetentionSweeper } from '@railyard/api';
import { lockDataDir } from './data-dir-lock';
import { ReadModelSnapshots, scheduleSnapshots, SNAPSHOT_FILE, type SnapshotModel } from './snapshots';
import { openWebhooks } from './webhooks';
import { embeddedLocalCi } from './embedded-ci';
import { engineHeadPosition, engineSnapshotsOf } from './engine-state-file';

export interface RunningServer {
  url: string;
  port: number;
  /** The retention sweep (D296), for tests and operators' tools that sweep now rather than on the timer. */
  retention: RetentionSweeper;
  close(): Promise<void>;
}

/**
 * The embedded shape: api + projector + merge engine in one process, SQLite events, in-memory read
 * models rebuilt from the events before the port opens. Listens on port 0 when asked, for tests.
 */
export const startServer = async (
  overrides: Partial<RailyardConfig> = {},
  options: {
    logger?: Logger;
    announce?: (line: string) => void;
    clock?: { now: () => Date };
    /** GitHub App parts for the webhooks and check runs (tests hand in a fake's); otherwise from RAILYARD_GITHUB_*. */
    github?: GithubApiParts;
  } = {},
): Promise<RunningServer> => {
  const config = { ...loadConfig(), ...overrides };
  const logger = options.logger ?? createLogger('railyard', config.logLevel);
  for (const s of config.ignoredSettings) logger.warn('setting ignored', { setting: s.name, why: s.why });
  // The data dir, then the port, before anything else starts: a second `npm start` on the same data
  // dir (whatever its port) or on a used port stops here, with no engine or projector started. Until
  // the models have caught up every request but /healthz is answered 503 STARTING.
  const lock = lockDataDir(config.dataDir);
  let handler: RequestListener = starting;
  const server: Server = createServer((req, res) => handler(req, res));
  try {
    await listenOrExplain(server, config.port, config.host, 'PORT');
  } catch (err) {
    lock.release();
    throw err;
  }
  lock.announce((server.address() as AddressInfo).port);
  try {
    const running = await startOnBoundServer(server, config, logger, options, (app) => {
      handler = app;
    });
    return {
      ...running,
      close: async () => {
        await running.close();
        lock.release();
      },
    };
  } catch (err) {
    server.close();
    lock.release();
    throw err;
  }
};

/** Answers while the embedded server is still starting: alive, not yet serving. */
const starting: RequestListener = (req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  res
    .writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' })
    .end('{"code":"STARTING","message":"Railyard is starting: the read models are catching up with the event store"}');
};

const startOnBoundServer = async (
  server: Server,
  config: RailyardConfig,
  logger: Logger,
  options: { announce?: (line: string) => void; clock?: { now: () => Date }; github?: GithubApiParts },
  serve: (app: RequestListener) => void,
): Promise<RunningServer> => {
  collectProcessMetrics();
  const tokens = loadTokens(
    { raw: config.apiTokens, file: config.apiTokensFile },
    config.dataDir,
    options.announce ?? ((l) => process.stdout.write(l)),
    (message) => logger.warn(message),
  );
  const eventStore = await openEventStore(config);
  const blobs = await openBlobStore(config);
  const readModels = openReadModels(config, 'memory');
  // The GitHub App, when configured: its repositories are read and merged through it, the rest locally.
  const github = config.github ? await openGithub(config.github, { logger }) : null;
  const gitHost = openGitHost(config, github);
  // Its webhooks at /github/webhooks; the hints they record reach the engine's GitHub host through the event store.
  const githubApi = options.github ?? (github ? await githubApiOf(github) : undefined);
  const hints = github
    ? await GithubHintFeed.start(eventStore, (err) => logger.error('github hint feed failed', { error: err.message }))
    : null;
  hints?.listen((hint) => github?.host.announce([hint]));
  const head = await eventStore.headPosition();
  const metrics = new MemoryMetricsStore();
  const testHealthConfig = testHealthConfigOf(config.testHealth, config.dataDir);
  const testHealthStore = openTestHealthStore('memory', { blobs, config: testHealthConfig });
  // Resumed from their snapshots where those fit (D252): the one subscription below then reads only the tail.
  const snapshotModels = [readModels, metrics, testHealthStore].filter(isSnapshottable) as unknown as SnapshotModel[];
  const snapshots =
    config.eventStore.kind === 'sqlite' && config.snapshotEveryEvents > 0
      ? new ReadModelSnapshots(path.join(path.dirname(config.eventStore.file), SNAPSHOT_FILE))
      : null;
  const restored = snapshots ? await snapshots.restore(snapshotModels, eventStore, logger) : [];
  const resumedAt = restored.reduce<bigint | null>(
    (low, r) => (r.resumedAt === null ? null : low === null || r.resumedAt < low ? r.resumedAt : low),
    null,
  );
  const snapshotting = snapshots
    ? scheduleSnapshots(
        { snapshots, models: snapshotModels, events: eventStore, logger, everyEvents: config.snapshotEveryEvents },
        resumedAt,
      )
    : null;
  // One subscription feeds the three in-memory projections: the log is read once at start, not three times.
  const models = fanOut([readModels, metrics, testHealthStore]);
  // Checked after each batch: a long log folded from the start pages its cold documents out as it goes (D320).
  const target = snapshotting ? { ...models, apply: (e: RecordedEvent[]) => models.apply(e).then(snapshotting.afterBatch) } : models;
  const projector = runProjector({ eventStore, readModels: target, logger });
  // The port opens only once the models hold every event already stored: no reader sees a half-built model.
  if (head !== null && !(await readModels.waitFor(head, 10 * 60_000))) throw new Error('read models did not catch up with the event store');
  if (head !== null && !(await metrics.waitFor(head, 10 * 60_000)))
    throw new Error('the metrics read model did not catch up with the event store');
  if (head !== null && !(await testHealthStore.waitFor(head, 10 * 60_000)))
    throw new Error('the test-health read models did not catch up with the event store');
  const port = (server.address() as AddressInfo).port;
  const selfUrl = `http://${config.host}:${port}`;
  // Reports the checks write go to test health, which the API composition below creates.
  const api: { composed?: ComposedApi } = {};
  const uploadReports = (input: UploadReportsInput): Promise<void> =>
    api.composed ? api.composed.testHealth.uploadReports(input) : Promise.reject(new Error('the API is not up yet'));
  // The engine runs on this thread, as in a standalone engine process: its checks start niced by the
  // local CI (D330), so they yield the CPU to the API without a thread of their own (D331).
  const { ci, statuses } = await embeddedLocalCi(config, eventStore, blobs, selfUrl, logger, uploadReports);
  const engine = startEmbeddedEngine({
    eventStore,
    blobs,
    gitRoot: config.gitRoot,
    settings: config.engine,
    logger,
    ci,
    github,
    ...(options.clock ? { now: options.clock.now } : {}),
    ...engineSnapshotsOf(config),
  });
  // Outgoing webhooks: endpoints in the event store, checkpoints and the delivery log beside it in the data dir.
  const webhooks = openWebhooks(
    config,
    eventStore,
    () => config.publicUrl ?? selfUrl,
    logger,
    (digest) => blobs.get(digest),
  );
  const composed = composeApi({
    eventStore,
    blobs,
    readModels,
    metrics,
    testHealthStore,
    testHealthConfig,
    gitHost,
    statuses,
    tokens,
    logger,
    ...apiSettingsOf(config),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(githubApi ? { github: githubApi } : {}),
    webhooks: webhooks.api,
  });
  api.composed = composed;
  const { app, testHealth } = composed;
  serve(app);
  composed.setSelfUrl(selfUrl);
  // The check runs on GitHub PRs follow the queue from here, beside the engine that drives it (one
  // process, so one writer); with the engine off, the standalone engine writes them under its leases.
  const checkRuns =
    githubApi && config.engine.enabled
      ? new CheckRunPublisher({
          eventStore,
          github: githubApi.app,
          host: githubApi.host,
          appId: githubApi.appId,
          publicUrl: config.ci.publicUrl ?? selfUrl,
          logger,
          stickyComments: config.githubStickyComments,
        })
      : null;
  await checkRuns?.start();
  webhooks.deliverer.start();
  // The only process on this data dir, so no lease; the events the snapshots name stay (D296).
  const retention = startRetention({
    settings: config.retention,
    eventStore,
    blobs,
    logger,
    ...(options.clock ? { clock: options.clock.now } : {}),
    keepFrom: () => lowest(snapshots?.lowestPosition() ?? null, engineHeadPosition(config)),
  });
  logger.info('railyard listening', {
    port,
    dataDir: config.dataDir,
    eventStore: config.eventStore.kind,
    engine: config.engine.enabled ? 'on' : 'off',
    tokens: tokens.size,
  });
  return {
    url: `http://${config.host}:${port}`,
    port,
    retention: retention.sweeper,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await checkRuns?.stop();
      await retention.close();
      await webhooks.close();
      await hints?.close();
      await engine?.stop();
      await ci.close();
      await projector.stop();
      // A clean stop leaves a snapshot of everything folded, so the next start reads nothing again.
      await snapshotting?.stop();
      snapshots?.close();
      await testHealth.close();
      await Promise.all([eventStore.close(), blobs.close(), readModels.close(), metrics.close(), testHealthStore.close(), gitHost.close()]);
      await github?.close();
    },
  };
};

const lowest = (a: bigint | null, b: bigint | null): bigint | null => (a === null ? b : b === null || a < b ? a : b);
