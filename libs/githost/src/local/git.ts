import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { GitHostError } from '../errors';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Written to git's standard input. */
  input?: string;
  /** Extra environment (identities, dates, GIT_INDEX_FILE for a scratch index). */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (merge-tree's 1 means "conflicts"). */
  okCodes?: readonly number[];
  /** Scheduling niceness for work nobody waits on (background mergeability), so requests keep the CPU. */
  niceness?: number;
}

// Variables that would point git at some other repository, index or object store than the one we
// name with --git-dir: a Railyard process started from a git hook inherits them.
const LOCATION_VARS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

export const baseEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  for (const name of LOCATION_VARS) delete env[name];
  return env;
};

export const MAX_OUTPUT = 64 * 1024 * 1024;

/** Runs git in a repository: from this process (`runGitHere`) or through a helper process (git-helper.ts). */
export type GitRunner = (gitDir: string | null, args: readonly string[], opts?: GitOptions) => Promise<GitResult>;

export const gitArgs = (gitDir: string | null, args: readonly string[]): string[] =>
  gitDir === null ? [...args] : [`--git-dir=${gitDir}`, ...args];

/** Turns how git ended (a null code: it could not start or was killed) into runGit's answer. */
export const settleGit = (
  args: readonly string[],
  opts: GitOptions,
  ended: { code: number | null; message: string; stdout: string; stderr: string },
): GitResult => {
  const { code, stdout, stderr } = ended;
  if (code === null) throw new GitHostError('GIT_FAILED', `could not run git ${args[0] ?? ''}: ${ended.message}`);
  if (code !== 0 && !(opts.okCodes ?? []).includes(code))
    throw new GitHostError('GIT_FAILED', `git ${args[0] ?? ''} exited with ${code}: ${stderr.trim()}`);
  return { code, stdout, stderr };
};

/**
 * Runs `git --git-dir=<gitDir> <args…>` with execFile from this process (no shell, so arguments are
 * never interpreted). Resolves with the output when the exit code is accepted, else throws
 * GIT_FAILED. A null gitDir runs git outside any repository (git init). Callers use `runGit`
 * (git-helper.ts), which runs the same from a helper process; the helper runs this.
 */
export const runGitHere: GitRunner = (gitDir, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      gitArgs(gitDir, args),
      { env: { ...baseEnv(), ...opts.env }, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
      (error, stdout, stderr) => {
        try {
          resolve(settleGit(args, opts, { code: exitCodeOf(error), message: String(error?.message), stdout, stderr }));
        } catch (err) {
          reject(err);
        }
      },
    );
    if (opts.niceness !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, opts.niceness);
      } catch {
        // Exited already, or not allowed here: it runs at normal priority, which is only slower for others.
      }
    }
    // A git that exits before reading its input closes the pipe; the exit code tells the story.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input ?? '');
  });

/** The process's exit code, 0 on success, or null when git could not be started or was killed. */
const exitCodeOf = (error: Error | null): number | null => {
  if (error === null) return 0;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : null;
};
