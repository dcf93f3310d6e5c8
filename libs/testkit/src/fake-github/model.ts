import type { KeyObject } from 'node:crypto';
import type { RepoScope } from './operations';

/** What the fake GitHub holds besides the git data itself (which lives in the bare repositories). */

export interface FakeUser {
  id: number;
  login: string;
  type: 'User' | 'Bot' | 'Organization';
  email: string;
}

export type PermissionLevel = 'read' | 'write';

export interface FakeApp {
  id: number;
  slug: string;
  name: string;
  owner: FakeUser;
  /** The user the App acts as: `<slug>[bot]`. */
  bot: FakeUser;
  /** Verifies the App's JWTs; absent for apps that never call the API (a CI's app). */
  publicKey?: KeyObject;
  permissions: Partial<Record<RepoScope, PermissionLevel>>;
  events: string[];
  createdAt: string;
}

export interface FakeInstallation {
  id: number;
  appId: number;
  account: FakeUser;
  repositorySelection: 'all' | 'selected';
  repoIds: Set<number>;
  permissions: Partial<Record<RepoScope, PermissionLevel>>;
  suspendedAt: string | null;
  createdAt: string;
  /** Primary rate limit: requests left in the current hour. */
  budget: { limit: number; used: number; resetAt: number };
}

export type CollaboratorRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';

export interface ClassicProtection {
  contexts: string[];
  /** Require the branch to be up to date with the base before merging. */
  strict: boolean;
}

export interface Ruleset {
  id: number;
  name: string;
  /** Exact branch names the ruleset applies to. */
  branches: string[];
  requiredChecks: { context: string; integrationId?: number }[];
  strict: boolean;
}

export interface FakeRepo {
  id: number;
  owner: FakeUser;
  name: string;
  gitDir: string;
  defaultBranch: string;
  private: boolean;
  /** The repository this one was forked from. */
  parentId: number | null;
  createdAt: string;
  collaborators: Map<string, CollaboratorRole>;
  protection: Map<string, ClassicProtection>;
  rulesets: Ruleset[];
  /** Apps allowed to move protected branches without the required checks (a bypass actor). */
  bypassAppIds: Set<number>;
  /** Branch tips as last seen, to tell what a change to the repository moved. */
  knownBranches: Map<string, string>;
}

export interface FakeLabel {
  id: number;
  name: string;
  color: string;
}

export interface Mergeability {
  baseSha: string;
  headSha: string;
  /** null while GitHub is still computing. */
  conflicts: boolean | null;
  mergeCommitSha: string | null;
}

export interface FakePull {
  id: number;
  number: number;
  repoId: number;
  headRepoId: number;
  headRef: string;
  headSha: string;
  baseRef: string;
  title: string;
  body: string | null;
  user: FakeUser;
  state: 'open' | 'closed';
  draft: boolean;
  labels: FakeLabel[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: FakeUser | null;
  mergeCommitSha: string | null;
  mergeability: Mergeability | null;
  /** Set when a push made the head part of the base and GitHub has not flagged the PR merged yet. */
  mergePending: { sha: string; by: FakeUser; baseBefore: string } | null;
  /** Where the PR's counters (commits, additions) are measured from once it no longer differs from its base. */
  countedFrom: string | null;
}

/** A GitHub Actions workflow run of a repository (a CI job the test started for a PR's head). */
export interface WorkflowRun {
  id: number;
  repoId: number;
  workflowId: number;
  name: string;
  path: string;
  event: 'pull_request' | 'pull_request_target' | 'push';
  headRepoId: number;
  headBranch: string;
  headSha: string;
  runNumber: number;
  runAttempt: number;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | 'cancelled' | null;
  actor: FakeUser;
  createdAt: string;
  updatedAt: string;
}

export type StatusState = 'error' | 'failure' | 'pending' | 'success';

export interface CommitStatus {
  id: number;
  repoId: number;
  sha: string;
  state: StatusState;
  context: string;
  description: string | null;
  targetUrl: string | null;
  creator: FakeUser;
  createdAt: string;
  updatedAt: string;
}

export type CheckStatus = 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
export type CheckConclusion = 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | 'stale';

export interface CheckSuite {
  id: number;
  repoId: number;
  appId: number;
  headSha: string;
  headBranch: string | null;
  createdAt: string;
  updatedAt: string;
  /** Whether check_suite.completed went out for the runs as they are now (a new run reopens the suite). */
  completionSent: boolean;
}

export interface CheckRun {
  id: number;
  suiteId: number;
  repoId: number;
  appId: number;
  name: string;
  headSha: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  actions: { label: string; description: string; identifier: string }[];
}

export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

export interface Reaction {
  id: number;
  user: FakeUser;
  content: ReactionContent;
  createdAt: string;
}

export interface IssueComment {
  id: number;
  repoId: number;
  issueNumber: number;
  user: FakeUser;
  body: string;
  createdAt: string;
  updatedAt: string;
  viaAppId: number | null;
  reactions: Reaction[];
}

export interface InstallationToken {
  token: string;
  installationId: number;
  expiresAt: number;
}
