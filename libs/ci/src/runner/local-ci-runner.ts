import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { LOCAL_CI_REPORTER, type RepoRef } from '@railyard/domain';
import { existingRepoDir, formatRepo, isObjectId, type CommitStatusInput, type CommitStatusStore } from '@railyard/githost';
import { errorFields, type Logger } from '@railyard/observability';
import { readRepoConfig } from '../config/repo-config';
import type { Check } from '../config/railyard-config';
import { ciLogBlobName, ciLogFile, ciLogPath, ciLogsDirOf, isValidTestRunId, joinUrl } from '../urls';
import { checkArgv, startCheck, type CheckExit, type CheckProcess, type CheckRlimits } from './check-process';
import { checkEnv, checkPath } from './check-env';
import { makeCheckout } from './checkout';
import { archivedLogOf, attemptLine, runningNote, type LogArchive } from './log-archive';
import { statusOf, type CheckFinished, type CheckOutcome, type InfrastructureErrorCode } from './outcome';
import { collectReports } from './reports';
import { CheckCgroup, probeCgroup, type CgroupProbe } from './limits/cgroup';
import { newCheckUid, writeCheckIdentity, type CheckIdentity } from './limits/check-user';
import { DEFAULT_CHECK_LIMITS, limitReason, MIB, type CheckLimits, type LimitName } from './limits/limits';
import { watchLimits } from './limits/watch';
import {
  checksGetOwnUid,
  probeSandbox,
  SANDBOX_FIX,
  sandboxArgv,
  type SandboxKind,
  type SandboxOptions,
  type SandboxProbe,
} from './sandbox';
import { Slots } from './slots';
import { createAttempt, recoverRunDir, recoverWorkDir, registerRunner, removeAttempt, type Attempt } from './work-dir';

export interface TriggerInput {
  repo: RepoRef;
  /** The commit to test: the test branch's head. */
  sha: string;
  /**
   * The commit whose `.railyard.yml` names the checks and reports: the target-branch commit the test
   * branch was built on, never `sha` (the PR under test must not choose its own checks). The engine
   * always gives it (LocalCi.trigger requires it); absent, the commit runs its own checks, which only
   * runner tests and benchmarks of a single trusted commit do.
   */
  configSha?: string;
  branch: string;
  testRunId: string;
  /** Measured from the trigger; 0 means no limit. Fractions are allowed (tests use seconds). */
  timeoutMinutes: number;
}

export interface UploadReportsInput {
  repo: RepoRef;
  sha: string;
  testRunId: string;
  /** The tested branch (the test branch, which names the PR): test health attributes the run to it. */
  branch: string;
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
  /** Called once per check with what became of it, after its final status is posted; it must not throw. */
  onCheckFinished?: (event: CheckFinished) => void;
  /** Where checks run. Default: bubblewrap, else the unshare sandbox; no network. */
  sandbox?: SandboxOptions;
  /** What one check may use (limits/limits.ts); unset ones take the defaults. */
  limits?: Partial<CheckLimits>;
  /** Where checks' cgroups go: `auto` (default), `off`, or a delegated cgroup v2 directory (limits/cgroup.ts). */
  cgroup?: string;
  /** How much nicer than this process checks run (check-process.ts). Default 0. */
  niceness?: number;
  /** Where the checks' PATH, LANG, LC_ALL and TZ come from; nothing else of it passes. Default: this process's environment. */
  baseEnv?: NodeJS.ProcessEnv;
  /**
   * Where each finished check's log is copied before its final status is posted, so an API on
   * another node can serve it (docs/operations.md, "CI logs"). Without it the log is only on this node.
   */
  logArchive?: LogArchive;
}

/** `.railyard.yml` at the config commit is broken: the run cannot know its checks. */
export class CiConfigError extends Error {
  override readonly name = 'CiConfigError';
  readonly code = 'START_TEST_RUN_CONFIG_PARSING_FAILURE';
}

/** Why a run stops before its checks end: cancelled by the engine, out of time, or Railyard itself stopping (no verdict at all). */
type Stop = 'cancelled' | 'timed_out' | 'shutdown';

const infrastructure = (code: InfrastructureErrorCode, message: string): CheckOutcome => ({ kind: 'infrastructure', code, message });
const RUNNER_FAILED = infrastructure('CI_RUNNER_ERROR', 'the runner failed; see the Railyard log');

const stopped = (run: { stop?: Stop; timeoutMinutes: number }, started: boolean): CheckOutcome | undefined =>
  run.stop === 'timed_out'
    ? { kind: 'timed_out', minutes: run.timeoutMinutes, started }
    : run.stop === 'cancelled'
      ? { kind: 'cancelled', started }
      : run.stop === 'shutdown'
        ? { kind: 'interrupted' }
        : undefined;

const execFileAsync = promisify(execFile);

/** Writes at the log's end, wherever the check left the shared file offset (after a cut it lies past the end). */
const appendLog = async (log: FileHandle, text: string): Promise<void> => {
  const { size } = await log.stat();
  await log.write(text, size);
};

interface DirIdentity {
  dev: number;
  ino: number;
}

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
  /** A status of the run could not be posted: a trigger must run its checks again, so the run is not remembered as finished. */
  postFailed?: boolean;
}

const FINAL_STATES = new Set(['success', 'failure', 'error']);
const FINISHED_KEPT = 10_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The local CI: runs the checks `.railyard.yml` lists at the run's config commit (the base it was
 * built on) against the tested commit, each in a scratch
 * checkout, and reports each as a commit status (pending, then success, failure or error) whose URL
 * is its log. The engine reads the outcome from the statuses, exactly as it would read a real CI's.
 */
export class LocalCiRunner {
  private readonly runs = new Map<string, Promise<Run | null>>();
  /**
   * The latest run triggered per tested commit. A retest on the same base builds the same commit, so
   * a cancelled run, reaped in the background, must not post its "cancelled" over the statuses of the
   * run that replaced it.
   */
  private readonly latestRunOf = new Map<string, { testRunId: string; alive: number }>();
  /**
   * Runs whose checks all ended and posted their final statuses, latest last (at most FINISHED_KEPT). Until
   * the engine records the verdict it sees the run testing and triggers it again; this answers that at
   * once, where a new start would read the config and the statuses in the verdict's way.
   */
  private readonly finished = new Set<string>();
  /** Stopped runs whose processes and checkouts are still being taken down (cancel() does not wait for them). */
  private readonly reaping = new Set<Promise<void>>();
  private readonly slots: Slots;
  private readonly logger?: Logger;
  private readonly graceMs: number;
  private readonly workDir: string;
  private readonly sandbox: SandboxOptions;
  private readonly limits: CheckLimits;
  private readonly identity = registerRunner();
  private sandboxProbe?: Promise<SandboxProbe>;
  private cgroupProbe?: Promise<CgroupProbe>;
  private closed = false;

  constructor(private readonly opts: LocalCiRunnerOptions) {
    this.slots = new Slots(opts.concurrency ?? 2);
    this.logger = opts.logger;
    this.graceMs = opts.killGraceMs ?? 5000;
    this.workDir = path.join(opts.dataDir, 'ci-work');
    const sandbox = opts.sandbox ?? { mode: 'auto', network: 'none' };
    this.limits = { ...DEFAULT_CHECK_LIMITS, ...opts.limits };
    // The data dir and the git root hold everything a check must not read; hidden wherever they are.
    this.sandbox = { ...sandbox, hiddenPaths: [opts.dataDir, opts.gitRoot, ...(sandbox.hiddenPaths ?? [])] };
  }

  /** Removes scratch checkouts left by a runner that died; call once at start. */
  async recover(): Promise<number> {
    const removed = await recoverWorkDir(this.workDir);
    if (removed > 0) this.logger?.info('ci: removed checkouts left by a stopped runner', { removed });
    return removed;
  }

  /**
   * Whether checks can run in their sandbox here, said loudly in the log when they cannot (each check
   * would report CI_SANDBOX_UNAVAILABLE) or when the sandbox is off. Call once at start.
   */
  async checkSandbox(): Promise<SandboxProbe> {
    const probe = await this.sandboxReady();
    if (this.sandbox.mode === 'off')
      this.logger?.warn(
        'ci: RAILYARD_CI_SANDBOX=off: checks run unsandboxed, as this process’s user, and can read its secrets; for development only',
      );
    // Not logged here when no sandbox works: createLocalCi refuses to start with one line that says it.
    else if (!probe.ok) return probe;
    else if (probe.kind === 'unshare')
      this.logger?.warn(
        'ci: bubblewrap is not usable here; checks run in the util-linux unshare sandbox, which starts each check with a process per mount (several times slower; docs/ci.md)',
      );
    const cgroup = await this.cgroupReady();
    if (cgroup.ok) this.logger?.info('ci: each check runs in a cgroup v2 of its own', { cgroup: cgroup.root, ...this.limits });
    else
      this.logger?.info('ci: no cgroup v2 for checks; limits held by rlimits and the runner’s watch, CPU not capped (docs/security.md)', {
        reason: cgroup.reason,
        ...this.limits,
      });
    return probe;
  }

  private cgroupReady(): Promise<CgroupProbe> {
    this.cgroupProbe ??= probeCgroup(this.opts.cgroup ?? 'auto');
    return this.cgroupProbe;
  }

  /** A cgroup for one attempt, when checks get them; one that cannot be made leaves the check to the fallback, said in the log. */
  private async cgroupFor(attemptId: string): Promise<CheckCgroup | undefined> {
    const cg = await this.cgroupReady();
    if (!cg.ok) return undefined;
    try {
      return await CheckCgroup.create(cg.root, attemptId, this.limits);
    } catch (err) {
      this.logger?.error('ci: could not make a check’s cgroup; its limits are the fallback’s', { cgroup: cg.root, ...errorFields(err) });
      return undefined;
    }
  }

  /** The rlimits of a check's command: each only where it bounds this check alone (limits.ts, docs/security.md). */
  private rlimitsOf(kind: SandboxKind, cgroup: CheckCgroup | undefined): CheckRlimits {
    return {
      // Per uid or per user namespace: a check's own only inside a sandbox (unsandboxed it is the server's uid).
      ...(kind !== 'off' ? { processes: this.limits.processes } : {}),
      // With a cgroup the kernel holds the whole check's memory and names an overrun; RLIMIT_DATA would fail it unnamed first.
      ...(cgroup ? {} : { dataKib: this.limits.memoryMib * 1024 }),
      fileKib: this.limits.diskMib * 1024,
    };
  }

  /** A probe that failed is tried again at the next check, so installing bubblewrap needs no restart. */
  private async sandboxReady(): Promise<SandboxProbe> {
    this.sandboxProbe ??= probeSandbox(this.sandbox, checkPath(this.opts.baseEnv ?? process.env));
    const probe = this.sandboxProbe;
    const result = await probe;
    if (!result.ok && this.sandboxProbe === probe) this.sandboxProbe = undefined;
    return result;
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
    if (input.configSha !== undefined && !isObjectId(input.configSha))
      throw new Error(`not a full commit id: ${JSON.stringify(input.configSha)}`);
    if (!(Number.isFinite(input.timeoutMinutes) && input.timeoutMinutes >= 0)) throw new Error('timeoutMinutes must be a number >= 0');
    const existing = this.runs.get(input.testRunId);
    if (existing) {
      await existing;
      return;
    }
    if (this.finished.has(input.testRunId)) return;
    const starting = this.start(input);
    this.runs.set(input.testRunId, starting);
    try {
      if ((await starting) === null) this.runs.delete(input.testRunId);
    } catch (err) {
      this.runs.delete(input.testRunId);
      throw err;
    }
  }

  /**
   * Stops the run's checks (the whole process tree of each) and reports them as errors. Resolves
   * once the stop is decided (no check of the run starts after it), not when the processes are gone:
   * they are reaped in the background (`reapsPending`, `whenDone`), so an engine cancelling the runs
   * behind a failure goes straight on to their restarts (docs/ci.md, "Cancellation").
   */
  async cancel(testRunId: string): Promise<void> {
    this.finished.delete(testRunId);
    const run = await this.runs.get(testRunId)?.catch(() => null);
    if (!run) return;
    const reap = this.halt(run, 'cancelled').catch((err: unknown) => {
      this.logger?.error('ci: could not reap a cancelled run', { testRunId, ...errorFields(err) });
    });
    this.reaping.add(reap);
    void reap.finally(() => this.reaping.delete(reap));
  }

  /**
   * Runs `contexts` of a run again (after an infrastructure error): their statuses go back to
   * pending, then the run is triggered; if some of its checks are still running, once they end.
   */
  async retry(input: TriggerInput, contexts: string[]): Promise<void> {
    if (this.closed) throw new Error('the CI runner is closed');
    if (!isValidTestRunId(input.testRunId)) throw new Error(`invalid test run id ${JSON.stringify(input.testRunId)}`);
    if (!isObjectId(input.sha)) throw new Error(`not a full commit id: ${JSON.stringify(input.sha)}`);
    const { repo, sha, testRunId } = input;
    this.finished.delete(testRunId);
    for (const context of contexts) {
      const targetUrl = joinUrl(this.opts.publicUrl(), ciLogPath(testRunId, context));
      await this.opts.statuses.set(repo, sha, {
        context,
        state: 'pending',
        targetUrl,
        description: 'queued again after an infrastructure error',
        reporter: LOCAL_CI_REPORTER,
      });
    }
    this.logger?.info('ci: checks queued again after an infrastructure error', { testRunId, checks: contexts });
    const existing = this.runs.get(testRunId);
    if (!existing) return this.trigger(input);
    void existing
      .then((run) => run?.done)
      .then(() => (this.closed ? undefined : this.trigger(input)))
      .catch((err: unknown) => this.logger?.error('ci: could not run checks again', { testRunId, ...errorFields(err) }));
  }

  /** Cancelled runs whose processes or checkouts are not gone yet. */
  reapsPending(): number {
    return this.reaping.size;
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

  /** Whether this runner has the run: its checks queued or running, or all ended with their statuses posted. */
  knows(testRunId: string): boolean {
    return this.runs.has(testRunId) || this.finished.has(testRunId);
  }

  /** Ids of the runs with checks queued or running. */
  activeRuns(): string[] {
    return [...this.runs.keys()];
  }

  /**
   * Stops every run and waits for their processes to be gone. Railyard stopping is no verdict on
   * the code: checks it interrupts post nothing, so their statuses stay pending and whichever engine
   * drives the queue next runs them again (docs/engine.md, "Failover").
   */
  async close(): Promise<void> {
    this.closed = true;
    const runs = await Promise.all([...this.runs.values()].map((r) => r.catch(() => null)));
    await Promise.all(runs.map((run) => (run ? this.halt(run, 'shutdown') : undefined)));
    await Promise.all([...this.reaping]);
    this.identity.release();
  }

  private async start(input: TriggerInput): Promise<Run | null> {
    const { repo, sha, testRunId } = input;
    const gitDir = await existingRepoDir(this.opts.gitRoot, repo);
    // The base's files, not the tested tree's: a PR that changes its checks is tested with the base's.
    const config = await readRepoConfig(this.opts.gitRoot, repo, input.configSha ?? sha);
    if (config.railyard && !config.railyard.ok) throw new CiConfigError(config.railyard.message);
    const checks = config.railyard?.config.checks ?? [];
    if (checks.length === 0) {
      this.logger?.info('ci: no checks in .railyard.yml; waiting for an outside CI', { testRunId, repo: formatRepo(repo), sha });
      return null;
    }
    // Only the local CI's own reports say a check already ran: anyone else's could claim it did.
    const reported = new Map(
      (await this.opts.statuses.reports(repo, sha)).filter((s) => s.reporter === LOCAL_CI_REPORTER).map((s) => [s.context, s]),
    );
    const todo = checks.filter((c) => {
      const s = reported.get(c.name);
      return !(s && FINAL_STATES.has(s.state) && s.targetUrl?.endsWith(ciLogPath(testRunId, c.name)));
    });
    if (todo.length === 0) return null;
    // A run taken over from a runner that died mid-check: its checkouts are leftovers, removed before the checks run again.
    const leftovers = await recoverRunDir(this.workDir, testRunId);
    if (leftovers > 0)
      this.logger?.info('ci: removed checkouts of a stopped runner before running its checks again', { testRunId, leftovers });
    const key = `${formatRepo(repo)}@${sha}`;
    this.latestRunOf.set(key, { testRunId, alive: (this.latestRunOf.get(key)?.alive ?? 0) + 1 });
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
    await fs.mkdir(path.join(ciLogsDirOf(this.opts.dataDir), testRunId), { recursive: true, mode: 0o700 });
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
        if (!run.stop && !run.postFailed) this.remember(testRunId);
        // Forgotten once no run of this commit is left, however they ended.
        const latest = this.latestRunOf.get(key);
        if (latest && --latest.alive === 0) this.latestRunOf.delete(key);
        void fs.rmdir(path.join(this.workDir, testRunId)).catch(() => undefined);
        this.logger?.info('ci: run finished', { testRunId, stopped: run.stop ?? null });
      });
    return run;
  }

  private remember(testRunId: string): void {
    this.finished.add(testRunId);
    if (this.finished.size > FINISHED_KEPT) this.finished.delete(this.finished.values().next().value as string);
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
        await this.finish(run, check, stopped(run, false) ?? { kind: 'cancelled', started: false });
        return;
      }
      try {
        await this.execute(run, check);
      } finally {
        this.slots.release();
      }
    } catch (err) {
      this.logger?.error('ci: check failed to run', { testRunId: run.input.testRunId, check: check.name, ...errorFields(err) });
      await this.finish(run, check, RUNNER_FAILED);
    }
  }

  private async execute(run: Run, check: Check): Promise<void> {
    const { testRunId, sha } = run.input;
    const log = await fs.open(ciLogFile(this.opts.dataDir, testRunId, check.name), 'w', 0o600);
    const started = Date.now();
    let outcome = RUNNER_FAILED;
    let attempt: Attempt | undefined;
    let cgroup: CheckCgroup | undefined;
    const attemptId = randomUUID();
    try {
      await log.write(
        `# railyard ci: check "${check.name}" at ${sha} (test run ${testRunId})\n${attemptLine(attemptId)}$ ${check.command}\n`,
      );
      await this.archiveLog(testRunId, check.name, runningNote(attemptId));
      if (this.sandbox.mode === 'off')
        await log.write('# WARNING: no sandbox (RAILYARD_CI_SANDBOX=off): this check could read the server’s secrets\n');
      const kind = await this.prepare(run, check, log);
      if (typeof kind !== 'string') {
        outcome = kind;
        return;
      }
      // Server root, in a sandbox: the check gets a uid of its own and a tmpfs sized to its disk limit.
      const ownUid = checksGetOwnUid(kind);
      const workspace = await createAttempt(
        this.workDir,
        testRunId,
        this.identity.id,
        check.name,
        ownUid ? this.limits.diskMib * MIB : undefined,
      );
      attempt = workspace;
      if (workspace.diskError) await log.write(`# no disk limit for this check: ${workspace.diskError}\n`);
      const user: CheckIdentity | undefined = ownUid ? await writeCheckIdentity(workspace.dir, newCheckUid()) : undefined;
      const made = await this.checkout(run, workspace, log, user?.uid);
      if ('kind' in made) {
        outcome = made;
        return;
      }
      cgroup = await this.cgroupFor(attemptId);
      const rootDir = kind === 'unshare' ? path.join(workspace.dir, 'root') : undefined;
      if (rootDir) await fs.mkdir(rootDir, { mode: 0o700 });
      let proc: CheckProcess;
      try {
        const space = {
          ...workspace,
          objects: path.join(run.gitDir, 'objects'),
          ...(user ? { user } : {}),
          ...(rootDir ? { rootDir } : {}),
        };
        proc = await startCheck({
          argv: sandboxArgv(kind, this.sandbox, space, checkArgv(check.command, this.rlimitsOf(kind, cgroup))),
          cwd: workspace.checkout,
          env: checkEnv(this.opts.baseEnv ?? process.env, run.input, check.name, kind === 'off' ? workspace.scratch : '/tmp'),
          logFd: log.fd,
          ...(cgroup ? { cgroupProcs: cgroup.procs } : {}),
          ...(this.opts.niceness ? { niceness: this.opts.niceness } : {}),
        });
      } catch (err) {
        outcome = infrastructure('CI_CHECK_NOT_STARTED', `could not start: ${(err as Error).message}`);
        return;
      }
      run.running.add(proc);
      const watch = watchLimits({
        limits: this.limits,
        log,
        ...(cgroup ? { cgroup } : user ? { uid: user.uid } : {}),
        ...(workspace.disk ? { disk: workspace.disk } : {}),
        onHit: () => void proc.killTree(0),
      });
      // A halt that came while the checkout was being made finds nothing to kill: kill it here.
      if (run.controller.signal.aborted) void proc.killTree(this.graceMs);
      const exit = await proc.exited;
      run.running.delete(proc);
      // A file past RLIMIT_FSIZE (the disk limit) kills its writer with SIGXFSZ, which the sandbox hands on as 128 + 25.
      const limit = (await watch.stop()) ?? (exit.signal === 'SIGXFSZ' || exit.code === 128 + 25 ? 'disk' : null);
      await this.cutLog(log);
      outcome = await this.judge(run, exit, workspace.checkout, made, started, limit);
      if ((outcome.kind === 'passed' || outcome.kind === 'failed') && run.reports.length > 0) {
        // Never throws for what the checkout holds: a report the PR made unreadable is a report it does not have.
        const found = await collectReports(workspace.checkout, run.reports);
        run.reportFiles.push(...found.files);
        if (found.paths.length > 0) await appendLog(log, `# reports: ${found.paths.join(', ')}\n`);
        for (const s of found.skipped) await appendLog(log, `# report skipped: ${s.path} (${s.reason})\n`);
      }
    } catch (err) {
      this.logger?.error('ci: check failed to run', { testRunId, check: check.name, ...errorFields(err) });
      outcome = RUNNER_FAILED;
    } finally {
      await appendLog(log, `# ${statusOf(outcome).description}\n`).catch(() => undefined);
      await log.close().catch(() => undefined);
      await this.archiveLog(testRunId, check.name);
      // The verdict is known and its log archived: the queue hears it before the clean-up (a checkout's
      // removal and a tmpfs unmount are a few hundred ms under load), which the slot still waits for.
      await this.finish(run, check, outcome);
      await cgroup?.remove().catch((err: unknown) => this.logger?.error('ci: could not remove a check’s cgroup', errorFields(err)));
      if (attempt)
        await removeAttempt(attempt.dir, attempt.disk !== undefined).catch((err: unknown) =>
          this.logger?.error('ci: could not remove a checkout', errorFields(err)),
        );
    }
  }

  /** A log past its limit is cut there once the check is gone (the check was stopped for it, or wrote it all at once). */
  private async cutLog(log: FileHandle): Promise<void> {
    const cap = this.limits.logMib * MIB;
    if ((await log.stat()).size <= cap) return;
    await log.truncate(cap);
    await appendLog(log, `\n# log cut at ${this.limits.logMib} MiB (RAILYARD_CI_LOG_MIB)\n`);
  }

  /**
   * Archives the finished log, or with `note` the running note of a starting attempt (log-archive.ts).
   * A log that cannot be archived stays on this node: its check's verdict does not depend on it.
   */
  private async archiveLog(testRunId: string, check: string, note?: Buffer): Promise<void> {
    if (!this.opts.logArchive) return;
    try {
      const bytes = note ?? (await archivedLogOf(ciLogFile(this.opts.dataDir, testRunId, check)));
      await this.opts.logArchive.putNamed(ciLogBlobName(testRunId, check), bytes);
    } catch (err) {
      this.logger?.error('ci: could not archive a check log; only this node serves it', { testRunId, check, ...errorFields(err) });
    }
  }

  /** Before anything is made: a run stopped meanwhile, or a sandbox that cannot work; else the sandbox to run in. */
  private async prepare(run: Run, check: Check, log: FileHandle): Promise<CheckOutcome | SandboxKind> {
    const stop = stopped(run, false);
    if (stop) return stop;
    await this.post(run, check, 'pending', 'running');
    const probe = await this.sandboxReady();
    if (probe.ok) return probe.kind;
    await log.write(`# ${probe.reason}\n`);
    return infrastructure('CI_SANDBOX_UNAVAILABLE', `${probe.reason}; ${SANDBOX_FIX}`);
  }

  /** The checkout, owned by whoever the check runs as; answers its identity, to notice later that it was replaced. */
  private async checkout(run: Run, attempt: Attempt, log: FileHandle, owner: number | undefined): Promise<DirIdentity | CheckOutcome> {
    const { sha } = run.input;
    try {
      await makeCheckout(run.gitDir, attempt.checkout, sha);
      // -h and -P: a symbolic link in the tested code must not make root hand out the file it points to.
      if (owner !== undefined)
        await execFileAsync('chown', ['-R', '-h', '-P', `${owner}:${owner}`, '--', attempt.checkout, attempt.scratch]);
      const { dev, ino } = await fs.stat(attempt.checkout);
      return { dev, ino };
    } catch (err) {
      await log.write(`# ${(err as Error).message}\n`);
      return infrastructure('CI_CHECKOUT_FAILED', `no checkout of ${sha.slice(0, 12)}`);
    }
  }

  /** The verdict, once the process is gone; only a command that ran in the checkout it was given can fail. */
  private async judge(
    run: Run,
    exit: CheckExit,
    checkout: string,
    made: DirIdentity,
    started: number,
    limit: LimitName | null,
  ): Promise<CheckOutcome> {
    const stop = stopped(run, true);
    if (stop) return stop;
    if (!exit.started)
      return infrastructure(
        'CI_CHECK_NOT_STARTED',
        `the sandbox did not start the command (exit code ${exit.code ?? exit.signal}); see the log`,
      );
    const now = await fs.stat(checkout).catch(() => null);
    if (!now || now.dev !== made.dev || now.ino !== made.ino)
      return infrastructure('CI_CHECKOUT_LOST', 'the checkout disappeared while the check ran');
    // Whatever its exit code: a check stopped at a limit failed for it, and says which.
    if (limit)
      return { kind: 'failed', exitCode: exit.code, signal: exit.signal, limit: { name: limit, reason: limitReason(limit, this.limits) } };
    if (exit.code === 0) return { kind: 'passed', seconds: Math.round((Date.now() - started) / 100) / 10 };
    return { kind: 'failed', exitCode: exit.code, signal: exit.signal };
  }

  /** Posts the final status, then tells the listener. An interrupted check posts nothing: it has no outcome. */
  private async finish(run: Run, check: Check, outcome: CheckOutcome): Promise<void> {
    if (outcome.kind === 'interrupted') return;
    const { repo: r, sha: s, testRunId: id } = run.input;
    const latest = this.latestRunOf.get(`${formatRepo(r)}@${s}`)?.testRunId;
    if (outcome.kind === 'cancelled' && latest !== undefined && latest !== id) return;
    const { state, description } = statusOf(outcome);
    await this.post(run, check, state, description);
    const { repo, sha, testRunId } = run.input;
    try {
      this.opts.onCheckFinished?.({ repo, sha, testRunId, check: check.name, outcome });
    } catch (err) {
      this.logger?.error('ci: onCheckFinished threw', { testRunId, check: check.name, ...errorFields(err) });
    }
  }

  private async upload(run: Run): Promise<void> {
    const { uploadReports } = this.opts;
    // Only checks that reached a verdict left files, so a run stopped afterwards (the queue merges or
    // cancels as soon as the last verdict is posted) still reports them; a stopping server does not wait.
    if (!uploadReports || run.stop === 'shutdown' || run.reportFiles.length === 0) return;
    const { repo, sha, testRunId, branch } = run.input;
    try {
      await uploadReports({ repo, sha, testRunId, branch, files: run.reportFiles });
    } catch (err) {
      this.logger?.error('ci: report upload failed', { testRunId, files: run.reportFiles.length, ...errorFields(err) });
    }
  }

  private async post(run: Run, check: Check, state: CommitStatusInput['state'], description: string): Promise<void> {
    const { repo, sha, testRunId } = run.input;
    const targetUrl = joinUrl(this.opts.publicUrl(), ciLogPath(testRunId, check.name));
    try {
      await this.opts.statuses.set(repo, sha, {
        context: check.name,
        state,
        targetUrl,
        ...(description ? { description } : {}),
        reporter: LOCAL_CI_REPORTER,
      });
    } catch (err) {
      run.postFailed = true;
      this.logger?.error('ci: could not post a status', { testRunId, check: check.name, state, ...errorFields(err) });
    }
  }
}
