import type { RepoRef } from '@railyard/domain';
import { hostEventsOf, type GithubHostEvent } from '../host/host-events';
import { TEST_BRANCH_PREFIX } from '../host/test-branch';

/**
 * What Railyard takes from one webhook delivery: small, validated facts, never the payload itself
 * (payloads reach hundreds of kilobytes and carry people's text). Pure: the webhook route records
 * the digest and acts on it (docs/github.md, "What happens on each event").
 */

/** A change the engine re-reads from GitHub: the adapter's own host events (`hostEventsOf`, one rule for both). */
export type GithubHostHint = GithubHostEvent;

/** A pull request as a `pull_request` event shows it. */
export interface WebhookPull {
  number: number;
  headSha: string;
  baseBranch: string;
  state: 'open' | 'closed' | 'merged';
  /** Set when the event retargeted the PR: the branch it left. */
  previousBase?: string;
}

export interface WebhookComment {
  number: number;
  commentId: number;
  login: string;
  body: string;
}

export interface WebhookDigest {
  event: string;
  action?: string;
  installationId?: number;
  /** The repository the event is about; installation events list several in `hints`. */
  repo?: RepoRef;
  hints: GithubHostHint[];
  pull?: WebhookPull;
  /** A new comment on a pull request (`issue_comment.created`). */
  comment?: WebhookComment;
  /**
   * What the queue commands this delivery carries are, whatever its delivery id: the comment's id and
   * action, or the pull request event's own identity. Absent for deliveries that only hint the engine,
   * which re-reads GitHub's current state and so may hear the same hint any number of times.
   */
  commandKey?: string;
}

/** Why a delivery is acknowledged and otherwise ignored. */
export interface IgnoredDelivery {
  ignored: string;
}

export interface DigestOptions {
  /** The host name repositories carry in queue ids (`github.com`, a GHES host). */
  host: string;
  /** The App's own id: its check runs and its bot's comments are not news to it. */
  appId: number;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);
const SHA = /^[0-9a-f]{40}$/;
const sha = (v: unknown): string | undefined => (typeof v === 'string' && SHA.test(v) ? v : undefined);

export const PULL_REQUEST_ACTIONS = [
  'opened',
  'synchronize',
  'edited',
  'closed',
  'reopened',
  'ready_for_review',
  'converted_to_draft',
  'labeled',
  'unlabeled',
] as const;

const CONSUMED_EVENTS = new Set([
  'installation',
  'installation_repositories',
  'pull_request',
  'issue_comment',
  'check_run',
  'check_suite',
  'status',
  'push',
]);

const repoOf = (payload: Json, host: string): RepoRef | undefined => {
  const r = obj(payload.repository);
  const owner = str(obj(r?.owner)?.login);
  const name = str(r?.name);
  return owner && name ? { host, owner, name } : undefined;
};

const reposListed = (list: unknown, host: string): RepoRef[] =>
  (Array.isArray(list) ? list : []).flatMap((item) => {
    const full = str(obj(item)?.full_name);
    const [owner, name, extra] = (full ?? '').split('/');
    return owner && name && extra === undefined ? [{ host, owner, name }] : [];
  });

const pullOf = (payload: Json): WebhookPull | undefined => {
  const pr = obj(payload.pull_request);
  const number = int(pr?.number) ?? int(payload.number);
  const headSha = sha(obj(pr?.head)?.sha);
  const baseBranch = str(obj(pr?.base)?.ref);
  if (!pr || !number || !headSha || !baseBranch) return undefined;
  const state = pr.merged === true ? 'merged' : pr.state === 'closed' ? 'closed' : 'open';
  const previousBase = str(obj(obj(obj(payload.changes)?.base)?.ref)?.from);
  return { number, headSha, baseBranch, state, ...(previousBase && previousBase !== baseBranch ? { previousBase } : {}) };
};

/**
 * A pull request event has no id of its own: it is the pull request (GitHub's id for it), the action,
 * the head and base it names and the PR's `updated_at`, which every change of the PR moves. The same
 * event replayed has the same key; a later push, close or retarget has another.
 */
const pullEventKey = (payload: Json, action: string, pull: WebhookPull): string => {
  const pr = obj(payload.pull_request);
  const id = int(pr?.id) ?? pull.number;
  return ['pull_request', id, action, pull.headSha, pull.baseBranch, pull.previousBase ?? '', str(pr?.updated_at) ?? ''].join(':');
};

const digestPullRequest = (base: WebhookDigest, payload: Json, repo: RepoRef): WebhookDigest | IgnoredDelivery => {
  if (!(PULL_REQUEST_ACTIONS as readonly string[]).includes(base.action ?? '')) return { ignored: `pull_request.${base.action ?? ''}` };
  const pull = pullOf(payload);
  if (!pull) return { ignored: 'pull_request without a pull request' };
  const commandKey = `${repo.host}:${pullEventKey(payload, base.action ?? '', pull)}`;
  return { ...base, pull, hints: [{ kind: 'pull', repo, number: pull.number }], commandKey };
};

const digestComment = (base: WebhookDigest, payload: Json, opts: DigestOptions): WebhookDigest | IgnoredDelivery => {
  if (base.action !== 'created') return { ignored: `issue_comment.${base.action ?? ''}` };
  const issue = obj(payload.issue);
  const comment = obj(payload.comment);
  // Comments on issues are not about a pull request; only PRs carry `issue.pull_request`.
  if (!obj(issue?.pull_request)) return { ignored: 'a comment on an issue' };
  const number = int(issue?.number);
  const commentId = int(comment?.id);
  const user = obj(comment?.user);
  const login = str(user?.login);
  const body = typeof comment?.body === 'string' ? comment.body : undefined;
  if (!number || !commentId || !login || body === undefined) return { ignored: 'issue_comment without its comment' };
  if (obj(comment?.performed_via_github_app)?.id === opts.appId) return { ignored: "the App's own comment" };
  // A comment's id is GitHub's, unique on its host; only `created` is consumed, but the action stays in the key.
  return { ...base, comment: { number, commentId, login, body }, commandKey: `${opts.host}:issue_comment:${commentId}:${base.action}` };
};

/** Check runs and suites count on Railyard's test branches and on PR heads (direct merge reads those). */
const digestCheck = (base: WebhookDigest, payload: Json, repo: RepoRef, opts: DigestOptions): WebhookDigest | IgnoredDelivery => {
  const run = obj(payload.check_run);
  const suite = obj(payload.check_suite) ?? obj(run?.check_suite);
  const app = obj(run?.app) ?? obj(suite?.app);
  if (base.event === 'check_run' && app?.id === opts.appId) return { ignored: "the App's own check run" };
  const headSha = sha(run?.head_sha) ?? sha(suite?.head_sha);
  if (!headSha) return { ignored: `${base.event} without a head sha` };
  const branch = str(suite?.head_branch);
  const onPull = [run?.pull_requests, suite?.pull_requests].some((p) => Array.isArray(p) && p.length > 0);
  if (!onPull && !(branch ?? '').startsWith(TEST_BRANCH_PREFIX)) return { ignored: `${base.event} on neither a test branch nor a PR` };
  return { ...base, hints: [{ kind: 'status', repo, sha: headSha }] };
};

/**
 * The digest of a verified delivery, or why it is ignored. `payload` is untrusted JSON (signed by
 * GitHub, but read defensively): anything malformed is ignored rather than thrown on.
 */
export const digestWebhook = (event: string, payload: unknown, opts: DigestOptions): WebhookDigest | IgnoredDelivery => {
  const digest = digestOf(event, payload, opts);
  if (isIgnored(digest)) return digest;
  // What the engine re-reads is the GitHub host's rule; this digest only decides what is worth recording.
  const hints = hostEventsOf(opts.host, event, payload);
  if (hints.length === 0 && !digest.pull && !digest.comment && event !== 'installation')
    return { ignored: `${event}.${digest.action ?? ''}: nothing to re-read` };
  return { ...digest, hints };
};

const digestOf = (event: string, payloadIn: unknown, opts: DigestOptions): WebhookDigest | IgnoredDelivery => {
  if (!CONSUMED_EVENTS.has(event)) return { ignored: `event ${event}` };
  const payload = obj(payloadIn);
  if (!payload) return { ignored: 'payload is not an object' };
  const action = str(payload.action);
  const installationId = int(obj(payload.installation)?.id);
  const base: WebhookDigest = { event, hints: [], ...(action ? { action } : {}), ...(installationId ? { installationId } : {}) };

  if (event === 'installation') {
    const repos = reposListed(payload.repositories, opts.host);
    return { ...base, hints: repos.map((repo) => ({ kind: 'resync', repo })) };
  }
  if (event === 'installation_repositories') {
    const repos = reposListed(payload.repositories_added, opts.host);
    return { ...base, hints: repos.map((repo) => ({ kind: 'resync', repo })) };
  }

  const repo = repoOf(payload, opts.host);
  if (!repo) return { ignored: `${event} without a repository` };
  const withRepo = { ...base, repo };
  switch (event) {
    case 'pull_request':
      return digestPullRequest(withRepo, payload, repo);
    case 'issue_comment':
      return digestComment(withRepo, payload, opts);
    case 'check_run':
    case 'check_suite':
      return digestCheck(withRepo, payload, repo, opts);
    case 'status': {
      const s = sha(payload.sha);
      return s ? { ...withRepo, hints: [{ kind: 'status', repo, sha: s }] } : { ignored: 'status without a sha' };
    }
    case 'push': {
      const ref = str(payload.ref);
      if (!ref?.startsWith('refs/heads/')) return { ignored: 'push of a tag' };
      const branch = ref.slice('refs/heads/'.length);
      if (branch.startsWith(TEST_BRANCH_PREFIX)) return { ignored: "push to Railyard's own test branch" };
      return { ...withRepo, hints: [{ kind: 'branch', repo, branch }] };
    }
    default:
      return { ignored: `event ${event}` };
  }
};

export const isIgnored = (d: WebhookDigest | IgnoredDelivery): d is IgnoredDelivery => 'ignored' in d;
