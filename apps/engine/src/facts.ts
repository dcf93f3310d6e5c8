import {
  activeEntries,
  directMergeCandidate,
  isMergeabilityKnown as isKnown,
  type DirectMergeFacts,
  type HostFacts,
  type Mergeability,
  type PullFacts,
  type QueueState,
  type RepoRef,
  type ReportedStatus,
} from '@railyard/domain';
import type { CiPort } from './ci/port';
import type { BranchHead, CodeHost, HostEvent, HostPullRequest, TestBranchRef } from './host/port';
import type { FactsSource } from './queue-driver';
import type { TargetOverlapsCache } from './targets';

/** What the engine knows of one queue's host facts; a missing key means "ask the host". */
interface Known {
  target?: BranchHead | null;
  pulls: Map<number, HostPullRequest | null>;
  /** Per PR: the answer and the head it was given for. Dropped when the target moves (the base changed). */
  mergeability: Map<number, { headSha: string; value: Mergeability }>;
  /** Commit statuses per sha (test branches and the direct-merge candidate's head). */
  statuses: Map<string, readonly ReportedStatus[]>;
  /** Direct merge: whether a head holds the target (per target sha and head), and the statuses a head requires. */
  upToDate: Map<string, boolean>;
  required: Map<string, readonly string[]>;
  trees: Map<string, string>;
  /** The queue's run ids when test branches were last listed: a run the state dropped may leave a branch to sweep. */
  listedForRuns?: string;
}

const sameRepo = (a: RepoRef, b: RepoRef): boolean => a.host === b.host && a.owner === b.owner && a.name === b.name;
const emptyKnown = (): Known => ({
  pulls: new Map(),
  mergeability: new Map(),
  statuses: new Map(),
  upToDate: new Map(),
  required: new Map(),
  trees: new Map(),
});

/**
 * What the planner needs from the code host and CI, learned incrementally. A fact is read from the
 * host once and kept until an event says it changed (a PR pushed or closed, the target moved, a
 * status posted, mergeability worked out), or until a verification pass re-reads everything (a slower
 * schedule, the safety net for a missed event). A pass over a queue whose facts did not change costs
 * no host call, so idle queues cost nothing and a busy API is not slowed by the engine re-reading
 * every PR on every event.
 */
export class FactsReader implements FactsSource {
  private readonly known = new Map<string, { repo: RepoRef; branch: string; facts: Known }>();

  constructor(
    private readonly host: CodeHost,
    private readonly ci: CiPort,
    private readonly overlaps?: TargetOverlapsCache,
  ) {}

  /**
   * Folds a host event into what is known; answers the queues it concerns (to be planned again).
   * A CI status change is a `status` event too.
   */
  onEvent(event: HostEvent): string[] {
    const touched: string[] = [];
    for (const [queueId, q] of this.known) {
      if (!sameRepo(q.repo, event.repo)) continue;
      const k = q.facts;
      switch (event.kind) {
        case 'pull':
          if (!k.pulls.has(event.number) && !k.mergeability.has(event.number)) continue;
          k.pulls.delete(event.number);
          k.mergeability.delete(event.number);
          break;
        case 'branch':
          if (event.branch !== q.branch) continue;
          delete k.target;
          k.mergeability.clear();
          break;
        case 'status':
          if (!k.statuses.has(event.sha)) continue;
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

  async read(s: QueueState, opts: { verify: boolean }): Promise<HostFacts> {
    if (opts.verify) this.known.delete(s.queueId);
    const k = this.factsOf(s);
    const target = await this.targetOf(s, k);

    const pulls = new Map<number, PullFacts>();
    for (const e of activeEntries(s)) {
      let pr = k.pulls.get(e.prNumber);
      if (pr === undefined) {
        pr = await this.host.pullRequest(s.repo, e.prNumber);
        k.pulls.set(e.prNumber, pr);
      }
      if (pr === null) continue;
      const facts: PullFacts = { headSha: pr.headSha, baseBranch: pr.baseBranch, state: pr.state };
      // Mergeability is asked only for PRs waiting to be ready: computing it is a merge.
      if (e.state === 'not_ready' && pr.state === 'open' && pr.headSha === e.headSha) {
        const m = await this.mergeabilityOf(s, k, pr);
        if (m !== undefined) facts.mergeability = m;
      }
      pulls.set(e.prNumber, facts);
    }

    const statuses = new Map<string, readonly ReportedStatus[]>();
    for (const run of s.runs.values())
      if (run.status === 'testing')
        statuses.set(run.testBranchSha, await this.statusesOf(k, run.testBranchSha, () => this.ci.statuses(s.repo, run.testBranchSha)));

    // Branches are listed when the queue's runs changed since the last listing (a run ended and was
    // dropped leaves its branch to sweep), and on verification (orphans of a crash); not on every pass.
    const runs = [...s.runs.keys()].join(',');
    const listBranches = opts.verify || k.listedForRuns !== runs;
    const testBranches: TestBranchRef[] = listBranches ? await this.host.listTestBranches(s.repo) : [];
    k.listedForRuns = runs;
    const facts: HostFacts = { target, pulls, statuses, testBranches };
    const overlaps = await this.overlaps?.forQueue(s);
    if (overlaps) facts.overlaps = overlaps;
    const directMerge = target ? await this.directMergeOf(s, k, target) : undefined;
    if (directMerge) facts.directMerge = directMerge;
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
    if (k.target === undefined) k.target = await this.host.branchHead(s.repo, s.branch);
    return k.target;
  }

  private async mergeabilityOf(s: QueueState, k: Known, pr: HostPullRequest): Promise<Mergeability | undefined> {
    const cached = k.mergeability.get(pr.number);
    if (cached?.headSha === pr.headSha) return cached.value;
    const value = await this.host.mergeability(s.repo, pr.number, pr.headSha);
    // Not known yet: the host announces the answer with a `mergeability` event, and the queue is planned again then.
    if (!isKnown(value)) return undefined;
    k.mergeability.set(pr.number, { headSha: pr.headSha, value });
    return value;
  }

  private async statusesOf(k: Known, sha: string, load: () => Promise<readonly ReportedStatus[]>): Promise<readonly ReportedStatus[]> {
    let known = k.statuses.get(sha);
    if (known === undefined) {
      known = await load();
      k.statuses.set(sha, known);
    }
    return known;
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
      const answer = await this.ci.resolveRequiredStatuses({ queueList: s.requiredStatuses, repo: s.repo, sha: e.headSha });
      required = 'error' in answer ? [] : answer.statuses;
      k.required.set(e.headSha, required);
    }
    const headStatuses = await this.statusesOf(k, e.headSha, () => this.host.statuses(s.repo, e.headSha));
    return { prNumber: e.prNumber, headSha: e.headSha, upToDate, headTree, requiredStatuses: required, headStatuses };
  }
}
