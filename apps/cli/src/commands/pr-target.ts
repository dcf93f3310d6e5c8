import type { EnqueuedPullRequest, GetQueueResponse, QueueKey, SubmittedPullRequestResponse } from '@railyard/api-schema';
import type { CliContext } from '../context';
import { apiTargetOf, postJson, type ApiTarget, type RemoteFlags } from '../http';
import { branchOption, prNumberOption, repoOption } from '../identifiers';

type ExplanationKey = 'stateReason' | 'waitingOn' | 'lastTestRun';

/**
 * The explanation getSubmittedPullRequest and getQueue entries carry beside the spec's fields
 * (docs/api.md, "Explanations"), typed by the server's schema. Optional here: an older server does
 * not send it, and the CLI then says less.
 */
export type Explained = Partial<Pick<SubmittedPullRequestResponse, ExplanationKey>>;

export type PrStatus = Omit<SubmittedPullRequestResponse, ExplanationKey> & Explained;
export type QueueEntry = Omit<EnqueuedPullRequest, ExplanationKey> & Explained;
export type QueueAnswer = Omit<GetQueueResponse, 'enqueuedPullRequests'> & { enqueuedPullRequests: QueueEntry[] };

export interface QueueFlags extends RemoteFlags {
  repo?: string;
  branch?: string;
  json?: boolean;
}

export interface PrFlags extends QueueFlags {
  pr?: string;
}

/** A queue on a server, every part checked before anything is sent. */
export interface QueueTarget {
  api: ApiTarget;
  key: QueueKey;
}

export const queueTargetOf = (flags: QueueFlags, ctx: CliContext): QueueTarget => {
  const repo = repoOption(flags.repo);
  const targetBranch = branchOption(flags.branch);
  return { api: apiTargetOf(flags, ctx.settings), key: { repo, targetBranch } };
};

export const prTargetOf = (flags: PrFlags, ctx: CliContext): QueueTarget & { pr: number } => {
  const repo = repoOption(flags.repo);
  const targetBranch = branchOption(flags.branch);
  const pr = prNumberOption(flags.pr);
  return { api: apiTargetOf(flags, ctx.settings), key: { repo, targetBranch }, pr };
};

export const getPr = (t: QueueTarget, pr: number): Promise<PrStatus> =>
  postJson<PrStatus>(t.api, '/getSubmittedPullRequest', { ...t.key, pr: { number: pr } });

export const getQueue = (t: QueueTarget): Promise<QueueAnswer> => postJson<QueueAnswer>(t.api, '/getQueue', t.key);

/** 1-based place in queue order and the queue's depth; undefined when the PR is not in the queue. */
export const positionIn = (queue: QueueAnswer, pr: number): { position: number; depth: number } | undefined => {
  const index = queue.enqueuedPullRequests.findIndex((e) => e.number === pr);
  return index < 0 ? undefined : { position: index + 1, depth: queue.enqueuedPullRequests.length };
};
