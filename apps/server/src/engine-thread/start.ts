import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { UploadReportsInput } from '@railyard/ci';
import type { EventStore } from '@railyard/eventstore';
import { addThreadSeries, errorFields, type Logger, type RegistrySnapshot } from '@railyard/observability';
import { appendHere } from './appends';
import { startThreadPool } from './niceness';
import { Pending } from './pending';
import type { EngineThreadData, FromEngineThread, ToEngineThread } from './protocol';

export interface EngineThreadOptions extends EngineThreadData {
  logger: Logger;
  /** The server's event store, on which the thread's appends are made (appends.ts). */
  eventStore: EventStore;
  /** Where the thread's finished checks send their test reports (the API's test health). */
  uploadReports: (input: UploadReportsInput) => Promise<void>;
  /** Wait before starting a thread again after it ended on its own. */
  restartMs?: number;
}

export interface EngineThread {
  /** Stops the engine as on SIGTERM (the pass in progress ends, checks are stopped), then the thread. */
  stop(): Promise<void>;
  /** The running thread's id; null while it is being started again, and after stop. */
  threadId(): number | null;
  /** Ends the running thread as a crash would, without stopping its engine first (tests of the restart). */
  crashForTest(): Promise<void>;
}

// From the sources (tsx, jest) the thread's entry is TypeScript, which a worker cannot load by itself:
// it registers tsx's require hook first. The production build (npm run build) compiles it to .js.
const ENTRY = path.join(__dirname, `thread${path.extname(__filename)}`);

const spawn = (data: EngineThreadData): Worker =>
  ENTRY.endsWith('.ts')
    ? new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))});require(${JSON.stringify(ENTRY)});`, {
        eval: true,
        workerData: data,
      })
    : new Worker(ENTRY, { workerData: data });

/**
 * Starts the embedded server's engine on a thread of its own (thread.ts, docs/decisions.md D46) and
 * resolves once it is running; rejects with the thread's own error when it cannot start. A thread
 * that ends while the server runs is logged and started again: queues are not left undriven.
 */
export const startEngineThread = async (options: EngineThreadOptions): Promise<EngineThread> => {
  const { logger, uploadReports, restartMs = 1000 } = options;
  // Before the thread makes itself nicer: the pool's threads would otherwise be made by it (niceness.ts).
  await startThreadPool();
  const data: EngineThreadData = { config: options.config, selfUrl: options.selfUrl };
  let current: Worker | null = null;
  let stopping = false;
  const scrapes = new Pending<RegistrySnapshot>();

  const send = (worker: Worker, message: ToEngineThread): void => worker.postMessage(message);
  const start = (): Promise<Worker> =>
    new Promise((resolve, reject) => {
      const worker = spawn(data);
      let ready = false;
      worker.on('message', (message: FromEngineThread) => {
        if (message.type === 'ready') {
          ready = true;
          resolve(worker);
        } else if (message.type === 'failed') {
          reject(new Error(`the engine thread did not start: ${message.message}`));
          // What it opened before it failed would keep the thread, and the process, alive.
          void worker.terminate();
        } else if (message.type === 'metrics') scrapes.settle(message.id, message.snapshot);
        else if (message.type === 'append') {
          void appendHere(options.eventStore, message.request).then((outcome) =>
            send(worker, { type: 'appended', id: message.id, outcome }),
          );
        } else if (message.type === 'uploadReports') {
          // Buffers arrive as plain Uint8Arrays: the reports' parsers take Buffers.
          const files = message.input.files.map((f) => Buffer.from(f.buffer, f.byteOffset, f.byteLength));
          uploadReports({ ...message.input, files }).then(
            () => send(worker, { type: 'reportsUploaded', id: message.id }),
            (err: unknown) =>
              send(worker, { type: 'reportsUploaded', id: message.id, error: err instanceof Error ? err.message : String(err) }),
          );
        }
      });
      worker.on('error', (err) => {
        logger.error('engine thread failed', errorFields(err));
        if (!ready) reject(err);
      });
      worker.on('exit', (code) => {
        if (!ready) reject(new Error(`the engine thread exited with code ${code} before it started`));
        if (current !== worker || stopping) return;
        current = null;
        logger.error('engine thread ended; starting it again', { code, restartMs });
        setTimeout(() => void restart(), restartMs).unref();
      });
    });
  const restart = async (): Promise<void> => {
    if (stopping) return;
    try {
      const worker = await start();
      // Stopped while this one was starting: it never drove a queue, so it can simply end.
      if (stopping) await worker.terminate();
      else current = worker;
    } catch (err) {
      logger.error('engine thread did not start again; trying again', errorFields(err));
      setTimeout(() => void restart(), restartMs).unref();
    }
  };

  current = await start();
  const removeSeries = addThreadSeries(() => {
    const worker = current;
    if (!worker) return Promise.reject(new Error('no engine thread running'));
    // A thread that ends before it answers must not hold the scrape.
    return scrapes.ask((id) => send(worker, { type: 'metrics', id }), { ms: 2000, message: 'the engine thread did not answer' });
  });
  return {
    threadId: () => current?.threadId ?? null,
    crashForTest: async () => {
      await current?.terminate();
    },
    stop: async () => {
      stopping = true;
      removeSeries();
      const worker = current;
      current = null;
      if (!worker) return;
      await new Promise<void>((resolve) => {
        worker.on('message', (message: FromEngineThread) => {
          if (message.type === 'stopped') resolve();
        });
        worker.on('exit', () => resolve());
        send(worker, { type: 'stop' });
      });
      await worker.terminate();
    },
  };
};
