import type { CheckLimits } from './runner/limits/limits';
import type { CheckNetwork, SandboxMode } from './runner/sandbox';

/** What the CI pieces are configured with; libs/runtime's loadConfig works the values out from the environment. */
export interface CiSettings {
  dataDir: string;
  gitRoot: string;
  /** RAILYARD_PUBLIC_URL: base of the log and PR URLs handed out; unset means "the address the API listens on". */
  publicUrl?: string;
  /** RAILYARD_CI_CONCURRENCY: local checks running at once. */
  concurrency: number;
  /** RAILYARD_CI_KILL_GRACE_MS: SIGTERM → SIGKILL delay for cancelled and timed-out checks. */
  killGraceMs: number;
  /** RAILYARD_CI_SANDBOX: `auto` (default: bwrap, else unshare), `bwrap`, `unshare` or `off` (development only: checks can read the server's secrets). */
  sandbox?: SandboxMode;
  /** RAILYARD_CI_MAX_PROCESSES, _MEMORY_MIB, _CPUS, _DISK_MIB, _LOG_MIB: what one check may use. */
  limits?: Partial<CheckLimits>;
  /** RAILYARD_CI_CGROUP: `auto` (default), `off`, or a delegated cgroup v2 directory. */
  cgroup?: string;
  /** RAILYARD_CI_NICENESS: how much nicer than the server checks run, so they yield the CPU to its API (D330). */
  niceness?: number;
  /** RAILYARD_CI_NETWORK: `none` (default: a loopback of the check's own) or `host`. */
  network?: CheckNetwork;
  /** Files holding secrets that checks must not see even under a system directory (RAILYARD_API_TOKENS_FILE). */
  hiddenPaths?: string[];
}
