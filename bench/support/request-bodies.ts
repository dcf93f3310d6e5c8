import type { RepoRef } from '@railyard/domain';
import type { PullSpec } from './git-fixture';

/** Produces the body of each request in send order. */
export type BodySource = () => string;

/** A PR request goes to the queue of the branch the PR targets. */
const prBody = (repo: RepoRef, pull: PullSpec, extra: object = {}): string =>
  JSON.stringify({ repo, targetBranch: pull.base, pr: { number: pull.number }, ...extra });

const at = <T>(items: readonly T[], k: number): T => items[k % items.length] as T;

/** Reads cycle over the given PRs, so the read models are hit across many documents, not one hot key. */
export const cyclingPrBodies = (repo: RepoRef, pulls: readonly PullSpec[]): BodySource => {
  const bodies = pulls.map((p) => prBody(repo, p));
  let k = 0;
  return () => at(bodies, k++);
};

export const queueBody = (repo: RepoRef, branch: string): BodySource => {
  const body = JSON.stringify({ repo, targetBranch: branch });
  return () => body;
};

// Both are in the medium band, so only the value changes, and every re-submission is a real change.
export const RESUBMIT_PRIORITIES = [60, 70] as const;

/**
 * Re-submissions of already queued PRs with a priority that alternates per pass over them: a PR's
 * next request always asks for a different priority than its last, so each one appends a
 * PrPriorityChanged (a re-submit that changes nothing appends nothing and would flatter the numbers).
 */
export const resubmitBodies = (repo: RepoRef, pulls: readonly PullSpec[]): BodySource => {
  let k = 0;
  return () => {
    const pass = Math.floor(k / pulls.length);
    const body = prBody(repo, at(pulls, k), { priority: at(RESUBMIT_PRIORITIES, pass) });
    k += 1;
    return body;
  };
};

/**
 * First submissions, one new PR per request. Past the last PR it wraps around (those requests change
 * nothing); `used()` says how many were asked for.
 */
export const freshSubmitBodies = (repo: RepoRef, pulls: readonly PullSpec[]): BodySource & { used(): number } => {
  let k = 0;
  const next = () => prBody(repo, at(pulls, k++));
  return Object.assign(next, { used: () => k });
};
