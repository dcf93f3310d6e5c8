import {
  directMergeCandidate,
  formatRepo,
  gatingConfigCommit,
  isTerminal,
  isMergeabilityKnown as isKnown,
  mergeabilityWindow,
  type DirectMergeFacts,
  type Entry,
  type HostFacts,
  type Mergeability,
  type PullFacts,
  type QueueState,
  sameRepo,
  type RepoRef,
  type ReportedStatus,
} from '@railyard/domain';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BranchHead, CiPort, CodeHost, FactsSource, HostEvent, HostPullRequest, TestBranchRef } from '@railyard/queue-driver';
import type { TargetOverlapsCache } from './targets';
import { TokenBucket } from './token-bucket';

/** What a PR's facts were made from: while none of it changed they are shown again as they are. */
interface Shown {
  entry: Entry;
  pull: HostPullRequest | null | undefined;
  mergeability: { headSha: string; value: Mergeability | 'asked' } | undefined;
  /** Waiting for its mergeability to be asked (behind the window, no token yet): looked at on every pass. */
  waiting: boolean;
}

/** What the engine knows of one queue's host facts; a missing key means "ask the host". */
interface Known {
  target?: BranchHead | null;
  pulls: Map<number, HostPullRequest | null>;
  /**
   * Per PR: the answer and the head it was given for, or `asked` while the host works it out (it is
   * not asked again until its event comes). Dropped when the target moves (the base changed).
   */
  mergeability: Map<number, { headSha: string; value: Mergeability | 'asked' }>;
  /** Commit statuses per sha (test branches and the direct-merge candidate's head). */
  statuses: Map<string, readonly ReportedStatus[]>;
  /** Direct merge: whether a head holds the target (per target sha and head), and the statuses required per config commit. */
  upToDate: Map<string, boolean>;
  required: Map<string, { statuses: readonly string[]; localChecks: readonly string[] }>;
  trees: Map<string, string>;
  /** The queue's run ids when test branches were last listed: a run the state dropped may leave a branch to sweep. */
  listedForRuns?: string;
  /**
   * The PR facts shown to the planner, kept from pass to pass and changed only where an entry, a PR or
   * its mergeability changed (docs/decisions.md D28), with what each was made from and the state's
   * entry map they follow (a state folded anew starts them over).
   */
  view: Map<number, PullFacts>;
  shown: Map<number, Shown>;
  entries?: ReadonlyMap<number, Entry>;
}

/**
 * A PR the host announced a change to this recently is not taken from its submission event: the API
 * may have read it before that change (docs/decisions.md D28).
 */
export const SUBMITTED_QUIET_MS = 10_000;

/**
 * PRs read from the host between two turns of the event loop. The local host answers from files
 * without a real wait, so a pass reading a thousand PRs (the verification) would otherwise hold the
 * loop, and the API's requests, for all of them (docs/decisions.md D28).
 */
export const READS_PER_TURN = 32;

/** A few per second: early conflict feedback in normal traffic, a small share of a core under a burst (docs/benchmarks.md). */
export const DEFAULT_MERGEABILITY_PER_SECOND = 10;

const epochKey = (repo: RepoRef, kind: 'pull' | 'branch' | 'status', id: string): string => `${formatRepo(repo)}\0${kind}\0${id}`;
const emptyKnown = (): Known => ({
  pulls: new Map(),
  mergeability: new Map(),
  statuses: new Map(),
  upToDate: new Map(),
  required: new Map(),
  trees: new Map(),
  view: new Map(),
  shown: new Map(),
});

/** Keeps what the queue still uses, so memory follows the queue and not its history. */
const forgetUnused = (k: Known, statuses: ReadonlyMap<string, unknown>, dm?: DirectMergeFacts): void => {
  for (const sha of k.statuses.keys()) if (!statuses.has(sha) && sha !== dm?.headSha) k.statuses.delete(sha);
  for (const m of [k.upToDate, k.required, k.trees]) if (m.size > 1000) m.clear();
};

/** Forgets what is known of a PR that left the queue (or that the host does not have). */
const forgetPr = (k: Known, n: number): void => {
  k.pulls.delete(n);
  k.mergeability.delete(n);
  k.shown.delete(n);
  k.view.delete(n);
};

/**
 * What the planner needs from the code host and CI, learned incrementally. A fact is read from the
 * host once and kept until an event says it changed (a PR pushed or closed, the target moved, a
 * status posted, mergeability worked out), or until a verification pass re-reads everything (a slower
 * schedule, the safety net for a missed event). A pass over a queue whose facts did not change costs
 * no host call, so idle queues cost nothing and a busy API is not slowed by the engine re-reading
 * every PR on every event.
 */
export interface FactsReaderOptions {
  /**
   * Mergeability asked per second, over all queues, for PRs outside a queue's window (docs/engine.md,
   * "Mergeability"); the window's PRs are asked at once. 0 asks only inside the window.
   */
  mergeabilityPerSecond?: number;
  /** Milliseconds, for the background rate. */
  now?: () => number;
}

export class FactsReader implements FactsSource {
  private readonly known = new Map<string, { repo: RepoRef; branch: string; facts: Known }>();
  /**
   * How many times an event said a fact changed, per fact. A read that an event overtook (the status
   * posted while it was being read) is used once but not kept: the next pass reads it again.
   */
  private readonly epochs = new Map<string, number>();
  /** When each fact's epoch last moved (the `now` clock), and until when that memory is incomplete. */
  private readonly bumpedAt = new Map<string, number>();
  private forgotUntil = 0;
  private readonly now: () => number;

  private readonly background: TokenBucket;

  constructor(
    private readonly host: CodeHost,
    private readonly ci: CiPort,
    private readonly overlaps?: TargetOverlapsCache,
    options: FactsReaderOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.background = new TokenBucket(options.mergeabilityPerSecond ?? DEFAULT_MERGEABILITY_PER_SECOND, this.now);
  }

  /**
   * Folds a host event into what is known; answers the queues it concerns (to be planned again).
   * A CI status change is a `status` event too.
   */
  onEvent(event: HostEvent): string[] {
    const touched: string[] = [];
    if (event.kind === 'pull') this.bump(epochKey(event.repo, 'pull', String(event.number)));
    if (event.kind === 'branch') this.bump(epochKey(event.repo, 'branch', event.branch));
    if (event.kind === 'status') this.bump(epochKey(event.repo, 'status', event.sha));
    for (const [queueId, q] of this.known) {
      if (!sameRepo(q.repo, event.repo)) continue;
      const k = q.facts;
      switch (event.kind) {
        // A pull or status the queue has not cached may be one it is reading right now: plan it again
        // either way (a pass over cached facts calls no host).
        case 'pull':
          k.pulls.delete(event.number);
          k.mergeability.delete(event.number);
          break;
        case 'branch':
          if (event.branch !== q.branch) continue;
          delete k.target;
          k.mergeability.clear();
          break;
        case 'status':
          k.statuses.delete(event.sha);
          break;
        case 'mergeability': {
          const pull = k.pulls.get(event.number);
          if (pull === undefined || pull === null || pull.headSha !== event.headSha) continue;
          if (isKnown(event.mergeability)) k.mergeability.set(event.number, { headSha: event.headSha, value: event.mergeability });
          break;
        }
        case 'resync':
          q.facts = emptyKnown();
          break;
      }
      touched.push(queueId);
    }
    return touched;
  }

  /** The queue is no longer driven here: forget its facts. */
  drop(queueId: string): void {
    this.known.delete(queueId);
  }

  forgetPull(s: QueueState, prNumber: number): void {
    const k = this.known.get(s.queueId)?.facts;
    k?.pulls.delete(prNumber);
    k?.mergeability.delete(prNumber);
  }

  forgetStatuses(s: QueueState, sha: string): void {
    this.known.get(s.queueId)?.facts.statuses.delete(sha);
  }

  forgetTarget(s: QueueState): void {
    const k = this.known.get(s.queueId)?.facts;
    if (!k) return;
    delete k.target;
    k.mergeability.clear();
  }

  async target(s: QueueState): Promise<BranchHead | null> {
    const k = this.factsOf(s);
    delete k.target;
    return this.targetOf(s, k);
  }

  private bump(key: string): void {
    this.epochs.set(key, (this.epochs.get(key) ?? 0) + 1);
    this.bumpedAt.set(key, this.now());
    if (this.epochs.size > 100_000) {
      this.epochs.clear();
      this.bumpedAt.clear();
      this.forgotUntil = this.now() + SUBMITTED_QUIET_MS;
    }
  }

  /**
   * A PR as the API read it from the host to submit it (the submission event carries its head, base,
   * title and author; only open PRs are submitted), kept as if read here: the first pass after a
   * submission then reads no PR file, where the API had just read the same one (docs/decisions.md D28).
   * Not taken while something is already known of the PR, nor when the host announced a change to it
   * in the last SUBMITTED_QUIET_MS (the API may have read it before). A change that comes later drops
   * it as any fact, and a landing reads the PR again first (D22).
   */
  learnSubmitted(queueId: string, pr: HostPullRequest): void {
    const q = this.known.get(queueId);
    if (!q || q.facts.pulls.has(pr.number)) return;
    const at = this.now();
    if (at < this.forgotUntil) return;
    const changedAt = this.bumpedAt.get(epochKey(q.repo, 'pull', String(pr.number)));
    if (changedAt !== undefined && at - changedAt < SUBMITTED_QUIET_MS) return;
    q.facts.pulls.set(pr.number, pr);
  }

  /** Loads a fact and answers whether no event about it came meanwhile (so it may be kept). */
  private async loadGuarded<T>(key: string, load: () => Promise<T>): Promise<{ value: T; current: boolean }> {
    const before = this.epochs.get(key) ?? 0;
    const value = await load();
    return { value, current: (this.epochs.get(key) ?? 0) === before };
  }

  async read(s: QueueState, opts: { verify: boolean }): Promise<HostFacts> {
    if (opts.verify) this.known.delete(s.queueId);
    const k = this.factsOf(s);
    const target = await this.targetOf(s, k);

    const pulls = await this.pullsOf(s, k);
    const statuses = new Map<string, readonly ReportedStatus[]>();
    for (const run of s.runs.values())
      if (run.status === 'testing')
        statuses.set(run.testBranchSha, await this.statusesOf(s, k, run.testBranchSha, () => this.ci.statuses(s.repo, run.testBranchSha)));

    // Branches are listed when the queue's runs changed since the last listing (a run ended and was
    // dropped leaves its branch to sweep), and on verification (orphans of a crash); not on every pass.
    const runs = [...s.runs.keys()].join(',');
    const listBranches = opts.verify || k.listedForRuns !== runs;
    const testBranches: TestBranchRef[] = listBranches ? await this.host.listTestBranches(s.repo) : [];
    k.listedForRuns = runs;
    const facts: HostFacts = { target, pulls, statuses, testBranches };
    if (this.ci.rerunsSameCommit?.(s.repo) === false) facts.sameCommitReruns = false;
    const overlaps = await this.overlaps?.forQueue(s);
    if (overlaps) facts.overlaps = overlaps;
    const directMerge = target ? await this.directMergeOf(s, k, target) : undefined;
    if (directMerge) facts.directMerge = directMerge;
    forgetUnused(k, statuses, directMerge);
    return facts;
  }

  /**
   * The facts of every active PR, made again only for PRs whose entry, host PR or mergeability changed
   * since the last pass, and for PRs still waiting to have their mergeability asked: a pass over a
   * queue of thousands where one PR changed does one PR's work, not a copy of every PR's facts.
   */
  private async pullsOf(s: QueueState, k: Known): Promise<ReadonlyMap<number, PullFacts>> {
    if (k.entries !== s.entries) {
      for (const n of [...k.pulls.keys(), ...k.mergeability.keys(), ...k.view.keys()]) if (!s.entries.has(n)) forgetPr(k, n);
      k.shown.clear();
      k.view.clear();
      k.entries = s.entries;
    }
    // An ended PR leaves `entries` once its books are closed (D250) while the map stays the same one:
    // what was known of it goes too, or its facts would be shown and kept for ever.
    for (const n of [...k.pulls.keys(), ...k.shown.keys()]) if (!s.entries.has(n)) forgetPr(k, n);
    let window: Set<number> | undefined;
    let bucketDry = false;
    let reads = 0;
    for (const e of s.entries.values()) {
      const n = e.prNumber;
      if (isTerminal(e.state)) {
        if (k.shown.has(n) || k.pulls.has(n)) forgetPr(k, n);
        continue;
      }
      const was = k.shown.get(n);
      if (was && was.entry === e && was.pull === k.pulls.get(n) && was.mergeability === k.mergeability.get(n)) {
        if (!was.waiting) continue;
        // Behind the window with no token left this pass: nothing can change for it until the next one.
        if (bucketDry && !(window ??= mergeabilityWindow(s)).has(n)) continue;
      }
      let pr = k.pulls.get(n);
      if (pr === undefined) {
        if (++reads % READS_PER_TURN === 0) await nextTurn();
        const read = await this.loadGuarded(epochKey(s.repo, 'pull', String(n)), () => this.host.pullRequest(s.repo, n));
        pr = read.value;
        if (read.current) k.pulls.set(n, pr);
      }
      if (pr === null) {
        // Not on the host: asked again next pass, as nothing would announce it.
        forgetPr(k, n);
        continue;
      }
      const facts: PullFacts = { headSha: pr.headSha, baseBranch: pr.baseBranch, state: pr.state };
      let waiting = false;
      // Mergeability is asked only for PRs waiting to be ready, since computing it is a merge: at once
      // inside the queue's window, at the background rate behind it (docs/decisions.md D38).
      if (e.state === 'not_ready' && pr.state === 'open' && pr.headSha === e.headSha) {
        const eager = (window ??= mergeabilityWindow(s)).has(n);
        const cached = k.mergeability.get(n);
        if (!eager && cached?.headSha !== pr.headSha && bucketDry) waiting = true;
        else {
          const m = await this.mergeabilityOf(s, k, pr, eager);
          if (m !== undefined) facts.mergeability = m;
          if (k.mergeability.get(n)?.headSha !== pr.headSha) {
            waiting = true;
            bucketDry = true;
          }
        }
      }
      k.view.set(n, facts);
      // A read an event overtook was used once but not kept: made again next pass, with a new read.
      if (k.pulls.get(n) === pr) k.shown.set(n, { entry: e, pull: pr, mergeability: k.mergeability.get(n), waiting });
      else k.shown.delete(n);
    }
    return k.view;
  }

  private factsOf(s: QueueState): Known {
    let q = this.known.get(s.queueId);
    if (!q || q.branch !== s.branch || !sameRepo(q.repo, s.repo)) {
      q = { repo: s.repo, branch: s.branch, facts: emptyKnown() };
      this.known.set(s.queueId, q);
    }
    return q.facts;
  }

  private async targetOf(s: QueueState, k: Known): Promise<BranchHead | null> {
    if (k.target !== undefined) return k.target;
    const read = await this.loadGuarded(epochKey(s.repo, 'branch', s.branch), () => this.host.branchHead(s.repo, s.branch));
    if (read.current) k.target = read.value;
    return read.value;
  }

  private async mergeabilityOf(s: QueueState, k: Known, pr: HostPullRequest, eager: boolean): Promise<Mergeability | undefined> {
    const cached = k.mergeability.get(pr.number);
    if (cached?.headSha === pr.headSha) return cached.value === 'asked' ? undefined : cached.value;
    if (!eager && !this.background.take()) return undefined;
    const value = await this.host.mergeability(s.repo, pr.number, pr.headSha);
    // Not known yet: the host announces the answer with a `mergeability` event, and the queue is planned again then.
    k.mergeability.set(pr.number, { headSha: pr.headSha, value: isKnown(value) ? value : 'asked' });
    return isKnown(value) ? value : undefined;
  }

  private async statusesOf(
    s: QueueState,
    k: Known,
    sha: string,
    load: () => Promise<readonly ReportedStatus[]>,
  ): Promise<readonly ReportedStatus[]> {
    const known = k.statuses.get(sha);
    if (known !== undefined) return known;
    const read = await this.loadGuarded(epochKey(s.repo, 'status', sha), load);
    if (read.current) k.statuses.set(sha, read.value);
    return read.value;
  }

  /** Facts for the one PR a direct merge could take (the rule is the domain's: `directMergeCandidate`, `headChecksPassed`). */
  private async directMergeOf(s: QueueState, k: Known, target: BranchHead): Promise<DirectMergeFacts | undefined> {
    const e = directMergeCandidate(s);
    if (!e) return undefined;
    const key = `${target.sha}..${e.headSha}`;
    let upToDate = k.upToDate.get(key);
    if (upToDate === undefined) {
      upToDate = await this.host.isAncestor(s.repo, target.sha, e.headSha).catch(() => false);
      k.upToDate.set(key, upToDate);
    }
    let headTree = k.trees.get(e.headSha);
    if (headTree === undefined) {
      headTree = await this.host.treeOf(s.repo, e.headSha).catch(() => '');
      if (headTree !== '') k.trees.set(e.headSha, headTree);
    }
    // The head lands on the target's head: that commit's files gate it, never the head's own.
    const configSha = gatingConfigCommit({ baseSha: target.sha });
    const requiredKey = `${configSha}\0${s.requiredStatuses.join('\0')}`;
    let required = k.required.get(requiredKey);
    if (required === undefined) {
      const answer = await this.ci.resolveRequiredStatuses({ queueList: s.requiredStatuses, repo: s.repo, configSha, branch: s.branch });
      required =
        'error' in answer ? { statuses: [], localChecks: [] } : { statuses: answer.statuses, localChecks: answer.localChecks ?? [] };
      k.required.set(requiredKey, required);
    }
    const headStatuses = await this.statusesOf(s, k, e.headSha, () => this.host.statuses(s.repo, e.headSha));
    return {
      prNumber: e.prNumber,
      headSha: e.headSha,
      upToDate,
      headTree,
      requiredStatuses: required.statuses,
      localChecks: required.localChecks,
      headStatuses,
    };
  }
}
