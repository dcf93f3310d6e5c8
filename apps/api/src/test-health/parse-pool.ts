import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorFields, type Logger } from '@railyard/observability';
import { runParseTask, type ParseOutcome, type ParseTask } from './parse-task';

/** The pool is full: the caller answers 503 with Retry-After rather than queueing without bound. */
export class ParserBusyError extends Error {
  constructor(readonly queued: number) {
    super(`${queued} uploads are already waiting to be parsed`);
  }
}

interface Job {
  id: number;
  task: ParseTask;
  resolve: (outcome: ParseOutcome) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

const WORKER_FILE = path.join(__dirname, 'parse-worker.js');

/**
 * JUnit parsing off the request thread: a fixed set of worker threads, one upload each at a time,
 * and a bounded queue in front of them. A worker that dies (out of memory on a hostile file) fails
 * its upload and is replaced. With `workers: 0` tasks run on the calling thread: for unit tests and
 * the benchmark only, since the configuration asks for one worker at least.
 */
export class JUnitParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: { workers: number; maxQueued: number; logger: Logger }) {}

  get pending(): number {
    return this.queue.length;
  }

  parse(task: ParseTask): Promise<ParseOutcome> {
    if (this.closed) return Promise.reject(new Error('the JUnit parser pool is closed'));
    if (this.options.workers === 0) {
      try {
        return Promise.resolve(runParseTask(task));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    const idle = this.slots.find((s) => s.job === null);
    if (!idle && this.slots.length >= this.options.workers && this.queue.length >= this.options.maxQueued) {
      return Promise.reject(new ParserBusyError(this.queue.length));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length < this.options.workers) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.worker.postMessage({ id: job.id, task: job.task });
    }
  }

  private spawn(): Slot {
    // A heap cap: a report is at most 20 MiB of XML, so a worker needing more is runaway and dies alone, not the server.
    const worker = new Worker(WORKER_FILE, { resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    const slot: Slot = { worker, job: null };
    worker.unref();
    worker.on('message', (message: { id: number; outcome?: ParseOutcome; crash?: string }) => {
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      slot.job = null;
      if (message.outcome) job.resolve(message.outcome);
      else job.reject(new Error(`JUnit parsing failed: ${message.crash ?? 'unknown error'}`));
      this.dispatch();
    });
    const lost = (err: Error) => {
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.slots.splice(index, 1);
      if (slot.job) slot.job.reject(err);
      slot.job = null;
      if (!this.closed) {
        this.options.logger.error('a JUnit parser worker stopped; starting another', errorFields(err));
        this.dispatch();
      }
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`JUnit parser worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the JUnit parser pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
