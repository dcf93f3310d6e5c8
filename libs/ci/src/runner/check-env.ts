import { formatRepo } from '@railyard/domain';
import type { TriggerInput } from './local-ci-runner';

/**
 * Variables a check inherits from the server, by name: where programs are and how text is encoded.
 * Nothing else passes. A deny-list (drop RAILYARD_*, keep the rest) leaked whatever an operator put
 * in the server's environment under another name: a KurrentDB URL with a password, a cloud key.
 */
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TZ'];

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The PATH checks get, and with which bwrap is found. */
export const checkPath = (base: NodeJS.ProcessEnv): string => base.PATH || DEFAULT_PATH;

/**
 * The whole environment a check runs in (and the sandbox around it: whatever bwrap is started with,
 * its own /proc/1/environ shows the check): a few inherited variables, a home and temporary
 * directory of its own, and what it may want to know about its run (docs/ci.md).
 */
export const checkEnv = (base: NodeJS.ProcessEnv, run: TriggerInput, check: string, tmp: string): Record<string, string> => {
  const env: Record<string, string> = { PATH: checkPath(base) };
  for (const name of INHERITED) {
    const value = base[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  return {
    ...env,
    HOME: tmp,
    TMPDIR: tmp,
    CI: 'true',
    RAILYARD_CI: 'true',
    RAILYARD_TEST_RUN_ID: run.testRunId,
    RAILYARD_SHA: run.sha,
    RAILYARD_BRANCH: run.branch,
    RAILYARD_CHECK: check,
    RAILYARD_REPO: formatRepo(run.repo),
  };
};
