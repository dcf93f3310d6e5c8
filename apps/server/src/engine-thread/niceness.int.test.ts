import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { execFileSync } from 'node:child_process';
import { currentThreadId, niceThisThread } from './niceness';

/** The engine thread's niceness (niceness.ts) on a real worker thread, read back from /proc. */

const linux = process.platform === 'linux';
const onLinux = linux ? describe : describe.skip;
if (!linux) console.log('SKIPPED niceness.int.test.ts: per-thread niceness is Linux-only');

/** Field 19 of /proc/<pid>/task/<tid>/stat; the fields after the command's closing parenthesis start at field 3. */
const nicenessOfTask = (tid: number): number => {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

interface Reported {
  outcome: ReturnType<typeof niceThisThread>;
  tid: number | null;
  childNiceness: number;
}

/** A worker that calls niceThisThread(by), starts a process that reports its own niceness, and waits to be told to end. */
const niceWorker = async (by: number): Promise<{ worker: Worker; reported: Reported }> => {
  const source = `
    require(${JSON.stringify(require.resolve('tsx/cjs'))});
    const { parentPort, workerData } = require('node:worker_threads');
    const { execFileSync } = require('node:child_process');
    const { currentThreadId, niceThisThread } = require(${JSON.stringify(path.join(__dirname, 'niceness.ts'))});
    const outcome = niceThisThread(workerData.by);
    const childNiceness = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(require("node:os").getPriority()))']));
    parentPort.postMessage({ outcome, tid: currentThreadId(), childNiceness });
    parentPort.once('message', () => process.exit(0));
  `;
  const worker = new Worker(source, { eval: true, workerData: { by } });
  const reported = await new Promise<Reported>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, reported };
};

const end = async (worker: Worker): Promise<void> => {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.postMessage('end');
  await exited;
};

onLinux('the engine thread made nicer than the API thread', () => {
  it('when a worker thread asks to be 5 nicer, then that thread and the processes it starts are, and the thread that started it is not', async () => {
    const base = getPriority();
    const { worker, reported } = await niceWorker(5);
    try {
      expect(reported.outcome).toEqual({ set: Math.min(19, base + 5), tid: reported.tid });
      expect(reported.tid).not.toBe(currentThreadId());
      expect(nicenessOfTask(reported.tid as number)).toBe(Math.min(19, base + 5));
      expect(reported.childNiceness).toBe(Math.min(19, base + 5));
      expect(nicenessOfTask(process.pid)).toBe(base);
      expect(getPriority()).toBe(base);
    } finally {
      await end(worker);
    }
  });

  it('when more than 19 is asked, then the thread stops at 19', async () => {
    const { worker, reported } = await niceWorker(40);
    try {
      expect(reported.outcome).toEqual({ set: 19, tid: reported.tid });
      expect(nicenessOfTask(reported.tid as number)).toBe(19);
    } finally {
      await end(worker);
    }
  });

  it('when 0 is asked, then nothing changes and it says why', async () => {
    const base = getPriority();
    const { worker, reported } = await niceWorker(0);
    try {
      expect(reported.outcome).toEqual({ skipped: 'niceness 0 asked' });
      expect(nicenessOfTask(reported.tid as number)).toBe(base);
      expect(reported.childNiceness).toBe(base);
    } finally {
      await end(worker);
    }
  });

  it('when the calling thread is the main one, then its kernel id is the process id', () => {
    expect(currentThreadId()).toBe(process.pid);
  });
});

/**
 * A fresh process (the pool is made once per process) whose worker thread makes itself 5 nicer and
 * then uses libuv's thread pool; `warm` has the main thread start the pool first. Prints how many of
 * the process's threads are nicer than its main thread.
 */
const nicerThreadsOfFreshProcess = (warm: boolean): number => {
  const tsx = JSON.stringify(require.resolve('tsx/cjs'));
  const niceness = JSON.stringify(path.join(__dirname, 'niceness.ts'));
  const source = `
    require(${tsx});
    const { readdirSync } = require('node:fs');
    const { getPriority } = require('node:os');
    const { Worker } = require('node:worker_threads');
    const { startThreadPool } = require(${niceness});
    (async () => {
      if (process.argv.includes('warm')) await startThreadPool();
      const worker = new Worker(
        'require(' + ${JSON.stringify(tsx)} + '); const n = require(' + ${JSON.stringify(niceness)} + '); n.niceThisThread(5); n.startThreadPool().then(() => require("node:worker_threads").parentPort.postMessage("used"));',
        { eval: true },
      );
      await new Promise((resolve) => worker.once('message', resolve));
      const base = getPriority();
      console.log(readdirSync('/proc/self/task').filter((tid) => getPriority(Number(tid)) > base).length);
      await worker.terminate();
    })();
  `;
  return Number(execFileSync(process.execPath, ['-e', source, ...(warm ? ['warm'] : [])], { encoding: 'utf8' }).trim());
};

onLinux('the thread pool and the nicer engine thread', () => {
  it('when the nicer thread is the first to use the thread pool, then the pool’s threads are nicer too (the hazard)', () => {
    expect(nicerThreadsOfFreshProcess(false)).toBeGreaterThan(1);
  });

  it('when startThreadPool ran on the main thread first, then the nicer thread is the only nicer one', () => {
    expect(nicerThreadsOfFreshProcess(true)).toBe(1);
  });
});
