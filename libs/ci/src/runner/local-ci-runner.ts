import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { existingRepoDir, formatRepo, isObjectId, type CommitStatusInput, type CommitStatusStore } from '@railyard/githost';
import { errorFields, type Logger } from '@railyard/observability';
import { readRepoConfig } from '../config/repo-config';
import type { Check } from '../config/railyard-config';
import { checkFileName, ciLogFile, ciLogPath, ciLogsDirOf, isValidTestRunId, joinUrl } from '../urls';
import { startCheck, type CheckProcess } from './check-process';
import { checkEnv } from './check-env';
import { collectReports } from './reports';
import { Slots } from './slots';
import { recoverWorkDir, writeOwner } from './work-dir';
import { addWorktree, removeWorktree } from './worktree';

export interface TriggerInput {
  repo: RepoRef;
  /** The commit to test: the test branch's head. */
  sha: string;
  branch: string;
  testRunId: string;
  /** Measured from the trigger; 0 means no limit. Fractions are allowed (tests use seconds). */
  timeoutMinutes: number;
}

export interface UploadReportsInput {
  repo: RepoRef;
  sha: string;
  testRunId: string;
  files: Buffer[];
}

export interface LocalCiRunnerOptions {
  /** The local git host's root (`<host>/<owner>/<name>.git` under it). */
  gitRoot: string;
  /** Logs go to `<dataDir>/ci-logs`, scratch checkouts to `<dataDir>/ci-work`. */
  dataDir: string;
  statuses: CommitStatusStore;
  /** Base of the URLs given to statuses (the API that serves the logs), read at each use. */
  publicUrl: () => string;
  /** Checks running at once, over all runs. Default 2. */
  concurrency?: number;
  /** Between SIGTERM and SIGKILL when a check is cancelled or times out. Default 5 s. */
  killGraceMs?: number;
  logger?: Logger;
  /** Called once per run, after its checks, with the report files `.railyard.yml` names. */
  uploadReports?: (input: UploadReportsInput) => Promise<void>;
  /** Environment the checks start from (RAILYARD_* and npm_* are removed). Default: this process's. */
  baseEnv?: NodeJS.ProcessEnv;
}

/** `.railyard.yml` at the commit is broken: the run cannot know its checks. */
export class CiConfigError extends Error {
  override readonly name = 'CiConfigError';
  readonly code = 'START_TEST_RUN_CONFIG_PARSING_FAILURE';
}

type Stop = 'cancelled' | 'timed_out';

interface Run {
  input: TriggerInput;
  gitDir: string;
  reports: string[];
  controller: AbortController;
  stop?: Stop;
  timeoutMinutes: number;
  running: Set<CheckProcess>;
  reportFiles: Buffer[];
  done: Promise<void>;
}

const FINAL_STATES = new Set(['success', 'failure', 'error']);
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The local CI: runs the checks `.railyard.yml` lists at the tested commit, each in a scratch
 * checkout, and reports each as a commit status (pending, then success, failure or error) whose URL
 * is its log. The engine reads the outcome from the statuses, exactly as it would read a real CI's.
 */
export class LocalCiRunner {
  private readonly runs = new Map<string, Promise<Run | null>>();
  private readonly slots: Slots;
  private readonly logger?: Logger;
  private readonly graceMs: number;
  private readonly workDir: string;
  private closed = false;

  constructor(private readonly opts: LocalCiRunnerOptions) {
    this.slots = new Slots(opts.concurrency ?? 2);
    this.logger = opts.logger;
    this.graceMs = opts.killGraceMs ?? 5000;
    this.workDir = path.join(opts.dataDir, 'ci-work');
  }

  /** Removes scratch checkouts left by a runner that died; call once at start. */
  async recover(): Promise<number> {
    const removed = await recoverWorkDir(this.workDir, removeWorktree);
    if (removed > 0) this.logger?.info('ci: removed checkouts left by a stopped runner', { removed });
    return removed;
  }

  /**
   * Posts a pending status for every check and starts them (at most `concurrency` at once); resolves
   * once they are posted, not when they finish. Triggering a run this runner already has is a no-op,
   * and checks that already reported a final status for this run (before a restart) are not run
   * again. No `.railyard.yml`, or one without `ci`, starts nothing: an outside CI reports instead.
   */
  async trigger(input: TriggerInput): Promise<void> {
    if (this.closed) throw new Error('the CI runner is closed');
    if (!isValidTestRunId(input.testRunId)) throw new Error(`invalid test run id ${JSON.stringify(input.testRunId)}`);
    if (!isObjectId(input.sha)) throw new Error(`not a full commit id: ${JSON.stringify(input.sha)}`);
    if (!(Number.isFinite(input.timeoutMinutes) && input.timeoutMinutes >= 0)) throw new Error('timeoutMinutes must be a number >= 0');
    const existing = this.runs.get(input.testRunId);
    if (existing) {
      await existing;
      return;
    }
    const starting = this.start(input);
    this.runs.set(input.testRunId, starting);
    try {
      if ((await starting) === null) this.runs.delete(input.testRunId);
    } catch (err) {
      this.runs.delete(input.testRunId);
      throw err;
    }
  }

  /** Stops the run's checks (the whole process tree of each) and reports them as errors; resolves when they are gone. */
  async cancel(testRunId: string): Promise<void> {
    const run = await this.runs.get(testRunId)?.catch(() => null);
    if (!run) return;
    await this.halt(run, 'cancelled');
  }

  /** Resolves when the run's checks are all finished and reported (at once for a run it does not have). */
  async whenDone(testRunId: string): Promise<void> {
    const run = await this.runs.get(testRunId)?.catch(() => null);
    await run?.done;
  }

  /** Whether this runner has the run's checks queued or running (after a restart it has none). */
  isRunning(testRunId: string): boolean {
    return this.runs.has(testRunId);
  }

  /** Ids of the runs with checks queued or running. */
  activeRuns(): string[] {
    return [...this.runs.keys()];
  }

  /** Cancels every run and waits for their processes to be gone. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.runs.keys()].map((id) => this.cancel(id)));
  }

  private async start(input: TriggerInput): Promise<Run | null> {
    const { repo, sha, testRunId } = input;
    const gitDir = await existingRepoDir(this.opts.gitRoot, repo);
    const config = await readRepoConfig(this.opts.gitRoot, repo, sha);
    if (config.railyard && !config.railyard.ok) throw new CiConfigError(config.railyard.message);
    const checks = config.railyard?.config.checks ?? [];
    if (checks.length === 0) {
      this.logger?.info('ci: no checks in .railyard.yml; waiting for an outside CI', { testRunId, repo: formatRepo(repo), sha });
      return null;
    }
    const reported = new Map((await this.opts.statuses.list(repo, sha)).map((s) => [s.context, s]));
    const todo = checks.filter((c) => {
      const s = reported.get(c.name);
      return !(s && FINAL_STATES.has(s.state) && s.targetUrl?.endsWith(ciLogPath(testRunId, c.name)));
    });
    if (todo.length === 0) return null;
    const run: Run = {
      input,
      gitDir,
      reports: config.railyard?.ok ? config.railyard.config.reports : [],
      controller: new AbortController(),
      timeoutMinutes: input.timeoutMinutes,
      running: new Set(),
      reportFiles: [],
      done: Promise.resolve(),
    };
    await fs.mkdir(path.join(ciLogsDirOf(this.opts.dataDir), testRunId), { recursive: true });
    for (const check of todo) await this.post(run, check, 'pending', 'queued');
    const timeoutMs = Math.round(input.timeoutMinutes * 60_000);
    // setTimeout fires at once past 2^31-1 ms (24.8 days); a limit that far out is no limit.
    const timer = timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS ? setTimeout(() => void this.halt(run, 'timed_out'), timeoutMs) : undefined;
    timer?.unref();
    this.logger?.info('ci: run started', { testRunId, repo: formatRepo(repo), sha, checks: todo.map((c) => c.name) });
    run.done = Promise.all(todo.map((check) => this.runCheck(run, check)))
      .then(() => this.upload(run))
      .finally(() => {
        if (timer) clearTimeout(timer);
        this.runs.delete(testRunId);
        void fs.rmdir(path.join(this.workDir, testRunId)).catch(() => undefined);
        this.logger?.info('ci: run finished', { testRunId, stopped: run.stop ?? null });
      });
    return run;
  }

  private async halt(run: Run, why: Stop): Promise<void> {
    run.stop ??= why;
    run.controller.abort();
    await Promise.all([...run.running].map((p) => p.killTree(this.graceMs)));
    await run.done;
  }

  private async runCheck(run: Run, check: Check): Promise<void> {
    try {
      if (!(await this.slots.acquire(run.controller.signal))) {
        await this.post(run, check, 'error', run.stop === 'timed_out' ? 'timed out before it started' : 'cancelled before it started');
        return;
      }
      try {
        await this.execute(run, check);
      } finally {
        this.slots.release();
      }
    } catch (err) {
      this.logger?.error('ci: check failed to run', { testRunId: run.input.testRunId, check: check.name, ...errorFields(err) });
      await this.post(run, check, 'error', 'the runner failed; see the Railyard log').catch(() => undefined);
    }
  }

  private async execute(run: Run, check: Check): Promise<void> {
    const { testRunId, sha } = run.input;
    const logFile = ciLogFile(this.opts.dataDir, testRunId, check.name);
    const checkout = path.join(this.workDir, testRunId, checkFileName(check.name).replace(/\.log$/, ''));
    const log = await fs.open(logFile, 'w');
    const started = Date.now();
    let state: CommitStatusInput['state'] = 'error';
    let description = '';
    try {
      await log.write(`# railyard ci: check "${check.name}" at ${sha} (test run ${testRunId})\n$ ${check.command}\n`);
      if (run.stop) {
        description = run.stop === 'timed_out' ? 'timed out before it started' : 'cancelled before it started';
        return;
      }
      await this.post(run, check, 'pending', 'running');
      await writeOwner(checkout, run.gitDir);
      try {
        await addWorktree(run.gitDir, checkout, sha);
      } catch (err) {
        description = `could not start: no checkout of ${sha.slice(0, 12)}`;
        await log.write(`# ${description}: ${(err as Error).message}\n`);
        return;
      }
      let proc: CheckProcess;
      try {
        proc = await startCheck({
          command: check.command,
          cwd: checkout,
          env: checkEnv(this.opts.baseEnv ?? process.env, run.input, check.name),
          logFd: log.fd,
        });
      } catch (err) {
        description = `could not start: ${(err as Error).message}`;
        await log.write(`# ${description}\n`);
        return;
      }
      run.running.add(proc);
      // A halt that came while the checkout was being made finds nothing to kill: kill it here.
      if (run.controller.signal.aborted) void proc.killTree(this.graceMs);
      const exit = await proc.exited;
      run.running.delete(proc);
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      if (run.stop === 'timed_out') description = `timed out after ${run.timeoutMinutes} min; process tree killed`;
      else if (run.stop === 'cancelled') description = 'cancelled; process tree killed';
      else if (exit.code === 0) [state, description] = ['success', `passed in ${seconds}s`];
      else [state, description] = ['failure', exit.code === null ? `killed by ${exit.signal ?? 'a signal'}` : `exit code ${exit.code}`];
      await log.write(`# ${description}\n`);
      if (!run.stop && run.reports.length > 0) {
        const found = await collectReports(checkout, run.reports);
        run.reportFiles.push(...found.files);
        if (found.paths.length > 0) await log.write(`# reports: ${found.paths.join(', ')}\n`);
      }
    } finally {
      await log.close();
      await removeWorktree(run.gitDir, checkout);
      await fs.rm(`${checkout}.owner.json`, { force: true });
      await this.post(run, check, state, description);
    }
  }

  private async upload(run: Run): Promise<void> {
    const { uploadReports } = this.opts;
    if (!uploadReports || run.stop || run.reportFiles.length === 0) return;
    const { repo, sha, testRunId } = run.input;
    try {
      await uploadReports({ repo, sha, testRunId, files: run.reportFiles });
    } catch (err) {
      this.logger?.error('ci: report upload failed', { testRunId, files: run.reportFiles.length, ...errorFields(err) });
    }
  }

  private async post(run: Run, check: Check, state: CommitStatusInput['state'], description: string): Promise<void> {
    const { repo, sha, testRunId } = run.input;
    const targetUrl = joinUrl(this.opts.publicUrl(), ciLogPath(testRunId, check.name));
    try {
      await this.opts.statuses.set(repo, sha, { context: check.name, state, targetUrl, ...(description ? { description } : {}) });
    } catch (err) {
      this.logger?.error('ci: could not post a status', { testRunId, check: check.name, state, ...errorFields(err) });
    }
  }
}
