/**
 * What one check may use (docs/ci.md, "Limits"). Each has a default and a setting, read once by
 * libs/runtime's loadConfig; cgroup v2 holds them where the host allows it, rlimits and the runner's
 * watch otherwise (what that fallback cannot bound is said in docs/security.md).
 */
export interface CheckLimits {
  /** Processes and threads of the check at once (RAILYARD_CI_MAX_PROCESSES). */
  processes: number;
  /** Memory of the check, MiB (RAILYARD_CI_MEMORY_MIB). */
  memoryMib: number;
  /** CPUs the check may keep busy, fractions allowed (RAILYARD_CI_CPUS); 0: no cap. Held only by cgroup v2. */
  cpus: number;
  /** Its checkout and /tmp together, MiB (RAILYARD_CI_DISK_MIB); also the largest file it may write. */
  diskMib: number;
  /** Its log, MiB (RAILYARD_CI_LOG_MIB): past it, the check is killed and the log cut there. */
  logMib: number;
}

export const DEFAULT_CHECK_LIMITS: CheckLimits = { processes: 1024, memoryMib: 4096, cpus: 2, diskMib: 4096, logMib: 64 };

/** The limits a check can be failed for (a CPU cap slows a check down, it never fails it). */
export type LimitName = 'processes' | 'memory' | 'disk' | 'log';

export const MIB = 1024 * 1024;

/** What the failed status says: the limit, its value and the setting that changes it. */
export const limitReason = (name: LimitName, limits: CheckLimits): string => {
  switch (name) {
    case 'processes':
      return `reached its limit of ${limits.processes} processes (RAILYARD_CI_MAX_PROCESSES)`;
    case 'memory':
      return `passed its memory limit of ${limits.memoryMib} MiB (RAILYARD_CI_MEMORY_MIB)`;
    case 'disk':
      return `filled its disk limit of ${limits.diskMib} MiB (RAILYARD_CI_DISK_MIB)`;
    case 'log':
      return `passed its log limit of ${limits.logMib} MiB (RAILYARD_CI_LOG_MIB)`;
  }
};
