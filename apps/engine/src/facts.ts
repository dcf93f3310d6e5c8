import {
  activeEntries,
  directMergeCandidate,
  isMergeabilityKnown as isKnown,
  mergeabilityWindow,
  type DirectMergeFacts,
  type HostFacts,
  type Mergeability,
  type PullFacts,
  type QueueState,
  type RepoRef,
  type ReportedStatus,
} from '@railyard/domain';
import type { BranchHead, CiPort, CodeHost, FactsSource, HostEvent, HostPullRequest, TestBranchRef } from '@railyard/queue-driver';
import type { TargetOverlapsCache } from './targets';
import { TokenBucket } from './token-bucket';

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
  /** Direct merge: whether a head holds the target (per target sha and head), and the statuses a head requires. */
  upToDate: Map<string, boolean>;
  required: Map<string, readonly string[]>;
  trees: Map<string, string>;
  /** The queue's run ids when test branches were last listed: a run the state dropped may leave a branch to sweep. */
  listedForRuns?: string;
}

/** A few per second: early conflict feedback in normal traffic, a small share of a core under a burst (docs/benchmarks.md). */
export const DEFAULT_MERGEABILITY_PER_SECOND = 10;

const epochKey = (repo: RepoRef, kind: 'pull' | 'branch' | 'status', id: string): string =>
  `${repo.host}/${repo.owner}/${repo.name}\0${kind}\0${id}`;
const sameRepo = (a: RepoRef, b: RepoRef): boolean => a.host === b.host && a.owner === b.owner && a.name === b.name;
const emptyKnown = (): Known => ({
  pulls: new Map(),
  mergeability: new Map(),
  statuses: new Map(),
  upToDate: new Map(),
  required: new Map(),
  trees: new Map(),
});

/** Keeps what the queue still uses, so memory follows the queue and not its history. */
const forgetUnused = (
  k: Known,
  pulls: ReadonlyMap<number, unknown>,
  statuses: ReadonlyMap<string, unknown>,
  dm?: DirectMergeFacts,
): void => {
  for (const n of k.pulls.keys()) if (!pulls.has(n)) k.pulls.delete(n);
  for (const n of k.mergeability.keys()) if (!pulls.has(n)) k.mergeability.delete(n);
  for (const sha of k.statuses.keys()) if (!statuses.has(sha) && sha !== dm?.headSha) k.statuses.delete(sha);
  for (const m of [k.upToDate, k.required, k.trees]) if (m.size > 1000) m.clear();
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

  private readonly background: TokenBucket;

  constructor(
    private readonly host: CodeHost,
    private readonly ci: CiPort,
    private readonly overlaps?: TargetOverlapsCache,
    options: FactsReaderOptions = {},
  ) {
    this.background = new TokenBucket(options.mergeabilityPerSecond ?? DEFAULT_MERGEABILITY_PER_SECOND, options.now ?? Date.now);
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
    if (this.epochs.size > 100_000) this.epochs.clear();
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

    const pulls = new Map<number, PullFacts>();
    const window = mergeabilityWindow(s);
    for (const e of activeEntries(s)) {
      let pr = k.pulls.get(e.prNumber);
      if (pr === undefined) {
        const read = await this.loadGuarded(epochKey(s.repo, 'pull', String(e.prNumber)), () => this.host.pullRequest(s.repo, e.prNumber));
        pr = read.value;
        if (read.current) k.pulls.set(e.prNumber, pr);
      }
      if (pr === null) continue;
      const facts: PullFacts = { headSha: pr.headSha, baseBranch: pr.baseBranch, state: pr.state };
      // Mergeability is asked only for PRs waiting to be ready, since computing it is a merge: at once
      // inside the queue's window, at the background rate behind it (docs/decisions.md D38).
      if (e.state === 'not_ready' && pr.state === 'open' && pr.headSha === e.headSha) {
        const m = await this.mergeabilityOf(s, k, pr, window.has(e.prNumber));
        if (m !== undefined) facts.mergeability = m;
      }
      pulls.set(e.prNumber, facts);
    }

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
    forgetUnused(k, pulls, statuses, directMerge);
    return facts;
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
    let required = k.required.get(e.headSha);
    if (required === undefined) {
      const answer = await this.ci.resolveRequiredStatuses({
        queueList: s.requiredStatuses,
        repo: s.repo,
        sha: e.headSha,
        branch: s.branch,
      });
      required = 'error' in answer ? [] : answer.statuses;
      k.required.set(e.headSha, required);
    }
    const headStatuses = await this.statusesOf(s, k, e.headSha, () => this.host.statuses(s.repo, e.headSha));
    return { prNumber: e.prNumber, headSha: e.headSha, upToDate, headTree, requiredStatuses: required, headStatuses };
  }
}
