import type { Logger } from '@railyard/observability';
import type { TestDoc, TestHealthReadModels } from '@railyard/readmodels';
import {
  classificationRules,
  DEFAULT_CLASSIFICATION_RULES,
  evaluateTest,
  lookbackMs,
  passCannotChange,
  repoIdOf,
  type ClassificationRules,
  type RepoFacts,
  type RepoRef,
  type TestHealthEvent,
} from '@railyard/testhealth';
import type { EvidenceReporters } from './evidence-reporters';
import type { Clock, TestHealthWriter, WriteMeta } from './writer';

export interface EvaluationResult {
  evaluated: number;
  changed: number;
}

/** Tests classified per step; the event loop gets a turn between steps. */
const STEP = 500;

const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Re-classifies tests from their run history at the clock's `now` and records what changed
 * (TestStatusChanged, TestImpactChanged). Runs after every upload for the tests it named, and
 * periodically for the watched tests, which is how time-based recoveries land without a new upload.
 * One evaluation per repository at a time in this process; across processes the evaluation basis
 * in each event lets the read model keep the newest.
 */
export class TestEvaluator {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly readModels: TestHealthReadModels,
    private readonly writer: TestHealthWriter,
    private readonly facts: RepoFacts,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The repository's evidence reporters; absent: every upload counts. */
    private readonly evidenceReporters?: EvidenceReporters,
  ) {}

  /** Protected branches: the defaults plus the repository's own default branch. */
  async rulesFor(repo: RepoRef): Promise<ClassificationRules> {
    const branch = await this.facts.defaultBranch(repo);
    if (!branch || DEFAULT_CLASSIFICATION_RULES.protectedBranches.includes(branch)) return DEFAULT_CLASSIFICATION_RULES;
    // A `*` in a real branch name is impossible (git refuses it), so the name is a literal glob.
    return classificationRules({ protectedBranches: [...DEFAULT_CLASSIFICATION_RULES.protectedBranches, branch] });
  }

  /** After an upload: every test that failed, and those that passed unless a pass cannot change them. */
  afterUpload(
    repo: RepoRef,
    ids: { failingIds: readonly string[]; passedIds: readonly string[] },
    meta: WriteMeta,
  ): Promise<EvaluationResult> {
    return this.serialised(repo, async () => {
      const now = this.clock.now();
      const rules = await this.rulesFor(repo);
      const candidates = [...ids.failingIds];
      for (let i = 0; i < ids.passedIds.length; i += STEP) {
        const chunk = ids.passedIds.slice(i, i + STEP);
        const docs = await this.readModels.getTests(repoIdOf(repo), chunk);
        docs.forEach((doc, j) => {
          if (!doc || !passCannotChange(healthOf(doc), doc.lastFailedAt, now, rules)) candidates.push(chunk[j] as string);
        });
      }
      return this.run(repo, candidates, now, rules, meta);
    });
  }

  /** The periodic pass: unhealthy tests and those with a failure inside the longest monitor window. */
  sweep(repo: RepoRef, meta: WriteMeta): Promise<EvaluationResult> {
    return this.serialised(repo, async () => {
      const now = this.clock.now();
      const rules = await this.rulesFor(repo);
      const ids = await this.readModels.watchList(repoIdOf(repo), new Date(now.getTime() - lookbackMs(rules)).toISOString());
      return this.run(repo, ids, now, rules, meta);
    });
  }

  private async run(
    repo: RepoRef,
    ids: readonly string[],
    now: Date,
    rules: ClassificationRules,
    meta: WriteMeta,
  ): Promise<EvaluationResult> {
    const repoId = repoIdOf(repo);
    const evidenceReporters = ids.length > 0 ? ((await this.evidenceReporters?.of(repo)) ?? null) : null;
    let evaluated = 0;
    const events: TestHealthEvent[] = [];
    for (let i = 0; i < ids.length; i += STEP) {
      const chunk = ids.slice(i, i + STEP);
      const [docs, histories] = await Promise.all([this.readModels.getTests(repoId, chunk), this.readModels.getHistories(repoId, chunk)]);
      docs.forEach((doc, j) => {
        const history = histories[j];
        if (!doc || !history) return;
        evaluated += 1;
        const event = evaluateTest({
          repo,
          testId: doc.id,
          current: healthOf(doc),
          history: history.runs,
          revision: history.revision,
          now,
          rules,
          evidenceReporters,
        });
        if (event) events.push(event);
      });
      await yieldTurn();
    }
    if (events.length > 0) await this.writer.append(repo, events, meta);
    if (events.length > 0) this.logger.info('tests re-classified', { repo: repoId, evaluated, changed: events.length });
    return { evaluated, changed: events.length };
  }

  private serialised<T>(repo: RepoRef, work: () => Promise<T>): Promise<T> {
    const key = repoIdOf(repo);
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return next;
  }
}

const healthOf = (doc: TestDoc) => ({
  status: doc.status,
  reason: doc.reason,
  since: doc.since,
  pullRequestsImpactedLast7d: doc.pullRequestsImpactedLast7d,
  // Documents from before the corroboration rule have no such field: not corroborated, so re-evaluated.
  corroborated: doc.corroborated === true,
});
