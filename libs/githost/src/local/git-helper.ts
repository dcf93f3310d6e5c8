import { spawn, type ChildProcess } from 'node:child_process';
import { GitHostError } from '../errors';
import { baseEnv, gitArgs, MAX_OUTPUT, settleGit, type GitOptions, type GitResult, type GitRunner } from './git';

/**
 * The helper's whole program, run with `node -e`: plain JavaScript, so it needs no loader and the
 * build has no extra file to ship. It runs each git it is sent with execFile, as runGitHere does, and
 * sends back how it ended; it exits when its parent goes.
 */
const HELPER_SOURCE = `
const { execFile } = require('node:child_process');
const { setPriority } = require('node:os');
process.on('message', (m) => {
  const child = execFile('git', m.args, { env: { ...process.env, ...m.env }, maxBuffer: m.maxBuffer, encoding: 'utf8' }, (error, stdout, stderr) => {
    const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
    process.send({ id: m.id, code, message: error === null ? '' : String(error.message), stdout, stderr });
  });
  if (m.niceness !== undefined && child.pid !== undefined) {
    try { setPriority(child.pid, m.niceness); } catch {}
  }
  child.stdin.on('error', () => undefined);
  child.stdin.end(m.input);
});
process.on('disconnect', () => process.exit(0));
`;

interface Ended {
  id: number;
  code: number | null;
  message: string;
  stdout: string;
  stderr: string;
}

interface Pending {
  /** The helper it was sent to: a helper that dies fails only its own runs. */
  owner: ChildProcess;
  args: readonly string[];
  opts: GitOptions;
  resolve: (r: GitResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs git from a small helper process instead of from this one (docs/decisions.md D29). Starting a
 * process forks its parent, and the fork costs the parent CPU in proportion to its memory: a few
 * milliseconds of the server's event loop per git run once it holds thousands of PRs, against about
 * one in a helper of a few tens of megabytes. Answers are runGit's, errors included. The helper is
 * started on first use, started again if it dies (what it was running fails with GIT_FAILED), and
 * holds the event loop open only while a run is in flight.
 */
export class GitHelper {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  readonly run: GitRunner = (gitDir, args, opts = {}) =>
    new Promise<GitResult>((resolve, reject) => {
      if (this.closed) return reject(new GitHostError('GIT_FAILED', `could not run git ${args[0] ?? ''}: the git helper is closed`));
      const child = this.started();
      const id = this.nextId++;
      this.pending.set(id, { owner: child, args, opts, resolve, reject });
      if (this.pending.size === 1) child.channel?.ref();
      child.send({
        id,
        args: gitArgs(gitDir, args),
        env: opts.env ?? {},
        input: opts.input ?? '',
        niceness: opts.niceness,
        maxBuffer: MAX_OUTPUT,
      });
    });

  /** The helper's process id while it runs (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  close(): void {
    this.closed = true;
    this.child?.kill();
    this.child = null;
  }

  private started(): ChildProcess {
    if (this.child) return this.child;
    const env = baseEnv();
    // The server's own node options (a loader, a CPU profile) are not the helper's.
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['-e', HELPER_SOURCE], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env });
    child.on('message', (m: Ended) => this.ended(m));
    child.on('error', () => this.lost(child));
    child.on('exit', () => this.lost(child));
    child.unref();
    child.channel?.unref();
    this.child = child;
    return child;
  }

  private ended(m: Ended): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.child?.channel?.unref();
    try {
      p.resolve(settleGit(p.args, p.opts, m));
    } catch (err) {
      p.reject(err);
    }
  }

  private lost(child: ChildProcess): void {
    if (this.child === child) this.child = null;
    for (const [id, p] of this.pending) {
      if (p.owner !== child) continue;
      this.pending.delete(id);
      p.reject(new GitHostError('GIT_FAILED', `could not run git ${p.args[0] ?? ''}: the git helper exited`));
    }
  }
}

let shared: GitHelper | undefined;

/**
 * Runs git for this process (or thread) from one helper, started on first use: the engine starts a
 * few dozen git processes per test run, and each spawn from a server of a few hundred megabytes
 * blocked its event loop for a fork of all of it (D29's measurement; issue 26's engine bench: the
 * bench's CPU 52–56 s → 46–48 s, one core). Never closed: the helper holds nothing open while idle
 * and ends with its parent.
 */
export const runGit: GitRunner = (gitDir, args, opts) => (shared ??= new GitHelper()).run(gitDir, args, opts);
