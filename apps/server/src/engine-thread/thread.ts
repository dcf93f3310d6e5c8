import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { UploadReportsInput } from '@railyard/ci';
import { startEmbeddedEngine } from '@railyard/engine';
import { checkRunPublisherOf, GithubHintFeed, openGithub } from '@railyard/github';
import { createLogger, errorFields, railyardRegistry, type Logger } from '@railyard/observability';
import { openBlobStore, openEventStore } from '@railyard/runtime';
import { embeddedLocalCi } from '../embedded-ci';
import { engineSnapshotsOf } from '../engine-state-file';
import { withAppendsElsewhere, type AppendOutcome, type AppendRequest } from './appends';
import { niceThisThread } from './niceness';
import { Pending } from './pending';
import type { EngineThreadData, FromEngineThread, ToEngineThread } from './protocol';

/**
 * The embedded server's engine thread (start.ts starts it): the merge engine, the local CI that runs
 * its checks, and the GitHub check runs that follow its queues, on their own connections to the
 * server's event store and blob store, as a standalone engine has (docs/decisions.md D46). Three
 * things cross back to the server's thread: its appends, made on the server's connection so that the
 * store keeps one writer; the test reports of finished checks (test health lives with the API); and
 * this thread's metric series, for the server's /metrics.
 */
const run = async (port: MessagePort, { config, selfUrl }: EngineThreadData): Promise<void> => {
  const post = (message: FromEngineThread): void => port.postMessage(message);
  const logger = createLogger('railyard', config.logLevel);
  // Before anything starts: the git helper and the checks this thread spawns inherit its niceness.
  const niceness = niceThisThread(config.engine.threadNiceness);
  if ('set' in niceness) logger.info('engine thread niceness set', { niceness: niceness.set, tid: niceness.tid });
  else if (config.engine.threadNiceness > 0) logger.warn('engine thread niceness left as it is', { reason: niceness.skipped });
  const uploads = new Pending<void>();
  const appends = new Pending<AppendOutcome>();
  const uploadReports = (input: UploadReportsInput): Promise<void> => uploads.ask((id) => post({ type: 'uploadReports', id, input }));
  const appendThere = (request: AppendRequest): Promise<AppendOutcome> => appends.ask((id) => post({ type: 'append', id, request }));
  // Listening before the parts start: the engine appends as soon as it runs, and waits for the answers.
  let stopping = false;
  const parts = startParts(config, selfUrl, logger, uploadReports, appendThere);
  port.on('message', (message: ToEngineThread) => {
    if (message.type === 'metrics')
      void railyardRegistry.getMetricsAsJSON().then((snapshot) => post({ type: 'metrics', id: message.id, snapshot }));
    if (message.type === 'appended') appends.settle(message.id, message.outcome);
    if (message.type === 'reportsUploaded') {
      if (message.error === undefined) uploads.settle(message.id, undefined);
      else uploads.fail(message.id, new Error(message.error));
    }
    if (message.type === 'stop' && !stopping) {
      stopping = true;
      void parts
        .then((started) => started.stop())
        .then(
          () => post({ type: 'stopped' }),
          (err: unknown) => {
            logger.error('engine thread stop failed', errorFields(err));
            post({ type: 'stopped' });
          },
        );
    }
  });
  await parts;
  post({ type: 'ready' });
};

/** What the embedded server starts for its engine when it runs on the server's own thread, here on this one. */
const startParts = async (
  config: EngineThreadData['config'],
  selfUrl: string,
  logger: Logger,
  uploadReports: (input: UploadReportsInput) => Promise<void>,
  appendThere: (request: AppendRequest) => Promise<AppendOutcome>,
): Promise<{ stop(): Promise<void> }> => {
  const eventStore = withAppendsElsewhere(await openEventStore(config), appendThere);
  const blobs = await openBlobStore(config);
  const { ci } = await embeddedLocalCi(config, eventStore, blobs, selfUrl, logger, uploadReports);
  const github = config.github ? await openGithub(config.github, { logger }) : null;
  // The API's webhook route records hints in the event store; this thread's GitHub host reads them there.
  const hints = github
    ? await GithubHintFeed.start(eventStore, (err) => logger.error('github hint feed failed', { error: err.message }))
    : null;
  hints?.listen((hint) => github?.host.announce([hint]));
  const parts = { eventStore, blobs, gitRoot: config.gitRoot, settings: config.engine, logger, ci, github };
  const engine = startEmbeddedEngine({ ...parts, ...engineSnapshotsOf(config) });
  const checkRuns = github
    ? checkRunPublisherOf(github, {
        eventStore,
        publicUrl: config.ci.publicUrl ?? selfUrl,
        logger,
        stickyComments: config.githubStickyComments,
      })
    : null;
  await checkRuns?.start();
  return {
    stop: async () => {
      await checkRuns?.stop();
      await hints?.close();
      await engine?.stop();
      await ci.close();
      await Promise.all([eventStore.close(), blobs.close()]);
      await github?.close();
    },
  };
};

if (parentPort) {
  const port = parentPort;
  run(port, workerData as EngineThreadData).catch((err: unknown) => {
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies FromEngineThread);
  });
}
