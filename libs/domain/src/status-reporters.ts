/**
 * Who reported a commit status, as recorded with it (docs/security.md, "Who may report a status"):
 * - `local-ci`: Railyard's own local CI runner;
 * - `token:<name>`: a client of the HTTP API with the token of that name (`setCommitStatus`);
 * - `cli`: `railyard status set` writing straight to the data dir's event store (the server's own user);
 * - `github-app:<slug>`: a check run of that GitHub App; `github-user:<login>`: a commit status that GitHub user or bot posted.
 * A status recorded before reporters were recorded has none: its reporter is unknown.
 */
export const LOCAL_CI_REPORTER = 'local-ci';
export const CLI_REPORTER = 'cli';
export const tokenReporter = (name: string): string => `token:${name}`;
export const githubAppReporter = (slug: string): string => `github-app:${slug}`;
export const githubUserReporter = (login: string): string => `github-user:${login}`;

/** Who may report what, for one run or one direct merge (docs/security.md, "Who may report a status"). */
export interface ReporterPolicy {
  /** Contexts the local CI runs per the config commit (gatingConfigCommit): only it may report them. */
  localChecks: readonly string[];
  /** The queue's `statusReporters`: per context, the token names (or reporter ids) that may report it. */
  statusReporters: Readonly<Record<string, readonly string[]>>;
}

/**
 * Why a report does not count: `LOCAL_CI_ONLY`, the local CI runs the context and someone else
 * reported it; `REPORTER_NOT_ALLOWED`, the queue names who reports the context and it was not them.
 */
export type NotCountedWhy = 'LOCAL_CI_ONLY' | 'REPORTER_NOT_ALLOWED';

/**
 * Whether a list of named reporters holds `reporter`: an entry is a token name or a reporter id such
 * as `github-app:<slug>`. An unknown reporter (recorded before reporters were) is named by none.
 */
export const isNamedReporter = (named: readonly string[], reporter: string | undefined): boolean =>
  reporter !== undefined && named.some((entry) => entry === reporter || tokenReporter(entry) === reporter);

/**
 * The rule: a context the local CI runs counts only from the local CI; a context the queue names
 * reporters for counts only from them (an entry is a token name, or a reporter id such as
 * `github-app:<slug>`); any other context counts from anyone, as GitHub's required checks without an
 * expected source do. An unknown reporter (a status recorded before reporters were) is nobody.
 * Undefined: it counts.
 */
export const notCountedWhy = (policy: ReporterPolicy, context: string, reporter: string | undefined): NotCountedWhy | undefined => {
  if (policy.localChecks.includes(context)) return reporter === LOCAL_CI_REPORTER ? undefined : 'LOCAL_CI_ONLY';
  const allowed = policy.statusReporters[context];
  if (allowed === undefined) return undefined;
  return isNamedReporter(allowed, reporter) ? undefined : 'REPORTER_NOT_ALLOWED';
};

export interface GatingReports<T> {
  /** Per context, the latest report of a reporter allowed to give it, ordered by when each was reported. */
  counted: T[];
  /** The latest report of every other reporter, with why it does not count. */
  notCounted: (T & { why: NotCountedWhy })[];
}

/** Sorts a commit's reports (the latest of each context and reporter, latest last) by the rule. */
export const gatingReports = <T extends { context: string; reporter?: string }>(
  policy: ReporterPolicy,
  reports: readonly T[],
): GatingReports<T> => {
  const counted = new Map<string, T>();
  const notCounted: (T & { why: NotCountedWhy })[] = [];
  for (const report of reports) {
    const why = notCountedWhy(policy, report.context, report.reporter);
    if (why !== undefined) notCounted.push({ ...report, why });
    else {
      counted.delete(report.context);
      counted.set(report.context, report);
    }
  }
  return { counted: [...counted.values()], notCounted };
};

/** Who a sentence names for a reporter id. */
export const reporterLabel = (reporter: string | undefined): string => {
  if (reporter === undefined) return 'an unknown reporter';
  if (reporter === LOCAL_CI_REPORTER) return 'the local CI';
  if (reporter === CLI_REPORTER) return 'railyard status set';
  if (reporter.startsWith('token:')) return `token "${reporter.slice('token:'.length)}"`;
  return reporter;
};

/** The policy of a run (its recorded local checks) or a direct merge (the ones read at the target's head) in a queue. */
export const reporterPolicy = (
  queue: { statusReporters: Readonly<Record<string, readonly string[]>> },
  localChecks: readonly string[] | undefined,
): ReporterPolicy => ({ localChecks: localChecks ?? [], statusReporters: queue.statusReporters });
