import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { RepoRef, ReportedStatus } from '@railyard/domain';
import { repoDirOf } from '@railyard/githost';
import { errorFields, type Logger } from '@railyard/observability';
import type { CiPort, CiTrigger, RequiredStatusesAnswer } from './port';
import { readRepoCiConfig, RepoConfigError } from './repo-config';

export interface LocalCiOptions {
  gitRoot: string;
  /** Check logs and scratch trees live under here. */
  workDir: string;
  logger: Logger;
  /** Checks running at once across all runs. */
  maxParallel?: number;
}

interface Job {
  children: Set<ChildProcess>;
  cancelled: boolean;
  timer?: NodeJS.Timeout;
}

const keyOf = (repo: RepoRef, sha: string): string => `${repo.host}/${repo.owner}/${repo.name}@${sha}`;

/**
 * The engine's stand-in for libs/ci's runner: reads `.railyard.yml` at the tested commit, runs each
 * `ci:` check with `sh -c` in a scratch copy of the tree and keeps the commit statuses in memory.
 * Statuses are lost with the process; the engine re-triggers runs it finds testing after a restart.
 */
export class LocalCi implements CiPort {
  private readonly statusesByKey = new Map<string, Map<string, ReportedStatus>>();
  private readonly jobs = new Map<string, Job>();
  private readonly listeners = new Set<(repo: RepoRef, sha: string) => void>();
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private closed = false;

  constructor(private readonly options: LocalCiOptions) {}

  isRunning(testRunId: string): boolean {
    return this.jobs.has(testRunId);
  }

  onChange(listener: (repo: RepoRef, sha: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async statuses(repo: RepoRef, sha: string): Promise<ReportedStatus[]> {
    return [...(this.statusesByKey.get(keyOf(repo, sha))?.values() ?? [])];
  }

  async resolveRequiredStatuses(input: { queueList: readonly string[]; repo: RepoRef; sha: string }): Promise<RequiredStatusesAnswer> {
    if (input.queueList.length > 0) return { statuses: [...input.queueList], source: 'merge_instance' };
    const gitDir = repoDirOf(this.options.gitRoot, input.repo);
    if (gitDir === null) return { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES', message: 'unknown repository' };
    try {
      const config = await readRepoCiConfig(gitDir, input.sha);
      if (config.requiredStatuses?.length) return { statuses: config.requiredStatuses, source: 'trunk_config' };
      return { error: 'START_TEST_RUN_NO_REQUIRED_STATUSES', message: 'no required statuses: set them on the queue or in merge.required_statuses of .railyard.yml' };
    } catch (err) {
      if (err instanceof RepoConfigError) return { error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE', message: err.message };
      throw err;
    }
  }

  async trigger(req: CiTrigger): Promise<void> {
    if (this.closed || this.jobs.has(req.testRunId)) return;
    const gitDir = repoDirOf(this.options.gitRoot, req.repo);
    if (gitDir === null) return;
    const job: Job = { children: new Set(), cancelled: false };
    this.jobs.set(req.testRunId, job);
    // A restarted run can build the very same commit (same stack, same second): its statuses start afresh.
    this.statusesByKey.delete(keyOf(req.repo, req.sha));
    let checks: Record<string, string>;
    try {
      checks = (await readRepoCiConfig(gitDir, req.sha)).checks;
    } catch (err) {
      this.options.logger.warn('ci config unreadable', { testRunId: req.testRunId, ...errorFields(err) });
      checks = {};
    }
    for (const name of Object.keys(checks)) this.post(req, { context: name, state: 'pending' });
    job.timer = setTimeout(() => void this.cancel(req.testRunId), req.timeoutMinutes * 60_000);
    job.timer.unref();
    void Promise.all(Object.entries(checks).map(([name, command]) => this.runCheck(gitDir, req, job, name, command))).finally(() => {
      if (job.timer) clearTimeout(job.timer);
    });
  }

  async cancel(testRunId: string): Promise<void> {
    const job = this.jobs.get(testRunId);
    if (!job) return;
    job.cancelled = true;
    for (const child of job.children) killGroup(child);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const id of this.jobs.keys()) await this.cancel(id);
    this.listeners.clear();
  }

  private post(req: CiTrigger, status: ReportedStatus): void {
    const key = keyOf(req.repo, req.sha);
    const map = this.statusesByKey.get(key) ?? new Map<string, ReportedStatus>();
    map.set(status.context, status);
    this.statusesByKey.set(key, map);
    for (const l of this.listeners) l(req.repo, req.sha);
  }

  private async slot(): Promise<() => void> {
    const max = this.options.maxParallel ?? 4;
    if (this.active >= max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    return () => {
      this.active--;
      this.waiting.shift()?.();
    };
  }

  private async runCheck(gitDir: string, req: CiTrigger, job: Job, name: string, command: string): Promise<void> {
    const release = await this.slot();
    const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
    const dir = path.join(this.options.workDir, 'runs', `${req.testRunId}-${safe}`);
    const logFile = path.join(this.options.workDir, 'logs', req.testRunId, `${safe}.log`);
    const url = `file://${logFile}`;
    try {
      if (job.cancelled) return;
      await fs.mkdir(path.dirname(logFile), { recursive: true });
      await extractTree(gitDir, req.sha, dir);
      const code = await this.exec(job, command, dir, logFile, req);
      if (job.cancelled) return;
      this.post(req, { context: name, state: code === 0 ? 'success' : 'failure', url });
    } catch (err) {
      this.options.logger.warn('ci check could not run', { testRunId: req.testRunId, check: name, ...errorFields(err) });
      if (!job.cancelled) this.post(req, { context: name, state: 'error', url });
    } finally {
      release();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  private exec(job: Job, command: string, cwd: string, logFile: string, req: CiTrigger): Promise<number> {
    return new Promise((resolve, reject) => {
      const log = createWriteStream(logFile);
      const child = spawn('sh', ['-c', command], {
        cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, RAILYARD_TEST_RUN_ID: req.testRunId, RAILYARD_TEST_BRANCH: req.branch, RAILYARD_SHA: req.sha },
      });
      job.children.add(child);
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
      child.once('error', reject);
      child.once('close', (code) => {
        job.children.delete(child);
        log.end();
        resolve(code ?? 1);
      });
    });
  }
}

const killGroup = (child: ChildProcess): void => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/** A scratch copy of the commit's tree: `git archive | tar -x`, no worktree bookkeeping in the bare repository. */
const extractTree = async (gitDir: string, sha: string, dir: string): Promise<void> => {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', [`--git-dir=${gitDir}`, 'archive', '--format=tar', sha], { stdio: ['ignore', 'pipe', 'ignore'] });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'ignore'] });
    archive.stdout.pipe(tar.stdin);
    archive.once('error', reject);
    tar.once('error', reject);
    tar.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`could not extract ${sha}: tar exited with ${code}`))));
  });
};
