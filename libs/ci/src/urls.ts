import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';

/**
 * Test run ids are the engine's UUIDs (Trunk's v1 also had a `-bisection` suffix): letters, digits,
 * `-` and `_`, which keeps them safe as a path component and a URL segment.
 */
const TEST_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export const isValidTestRunId = (id: string): boolean => TEST_RUN_ID.test(id);

const TEST_BRANCH = /^(?:refs\/heads\/)?railyard-merge\/pr-\d+\/([^/]+)$/;

/**
 * The run id a CI job gives us: the id itself, or the test branch it was started on (what
 * GITHUB_REF and friends hold), whose last segment is the id. Null when it is neither.
 */
export const testRunIdFrom = (input: string): string | null => {
  const id = TEST_BRANCH.exec(input)?.[1] ?? input;
  return isValidTestRunId(id) ? id : null;
};

/** A check name as a file name: everything but letters, digits, `-` and `_` percent-encoded, so no name can climb out. */
export const checkFileName = (check: string): string =>
  `${Array.from(Buffer.from(check, 'utf8'))
    .map((b) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('')}.log`;

export const ciLogsDirOf = (dataDir: string): string => path.join(dataDir, 'ci-logs');

/** `<dataDir>/ci-logs/<testRunId>/<check>.log`; the id must be valid (isValidTestRunId). */
export const ciLogFile = (dataDir: string, testRunId: string, check: string): string => {
  if (!isValidTestRunId(testRunId)) throw new Error(`invalid test run id ${JSON.stringify(testRunId)}`);
  return path.join(ciLogsDirOf(dataDir), testRunId, checkFileName(check));
};

/**
 * The name a finished check's log is archived under in the blob store, derived alike by the runner
 * that writes it and the API that serves it (docs/operations.md, "CI logs"). The id must be valid.
 */
export const ciLogBlobName = (testRunId: string, check: string): string => {
  if (!isValidTestRunId(testRunId)) throw new Error(`invalid test run id ${JSON.stringify(testRunId)}`);
  return `${CI_LOG_SPACE}/${testRunId}/${checkFileName(check)}`;
};

/** The blob store's space of archived check logs, which retention sweeps (docs/decisions.md D296). */
export const CI_LOG_SPACE = 'ci-log';

export const ciLogPath = (testRunId: string, check: string): string =>
  `/ci/logs/${encodeURIComponent(testRunId)}/${encodeURIComponent(check)}`;

export const joinUrl = (base: string, pathname: string): string => `${base.replace(/\/+$/, '')}${pathname}`;

/** True when `url` is the log URL the local CI gives `context` in run `testRunId`: that is how its checks are told from other statuses. */
export const isLocalCheckUrl = (url: string | undefined, testRunId: string, context: string): boolean => {
  if (!url) return false;
  try {
    return new URL(url).pathname.endsWith(ciLogPath(testRunId, context));
  } catch {
    return false;
  }
};

/** Where the API shows a PR of the local host: GitHub's REST shape with the host as the first segment. */
export const pullRequestPath = (repo: RepoRef, prNumber: number): string =>
  `/repos/${[repo.host, repo.owner, repo.name].map(encodeURIComponent).join('/')}/pulls/${prNumber}`;
