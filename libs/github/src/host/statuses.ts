import type { ReportedStatus } from '@railyard/domain';

type State = ReportedStatus['state'];

const GOOD = new Set(['success', 'neutral', 'skipped']);

/** A check run as a commit status: still running is pending; success, neutral and skipped pass; cancelled is an error. */
export const checkRunState = (status: string, conclusion: string | null): State => {
  if (status !== 'completed') return 'pending';
  if (conclusion !== null && GOOD.has(conclusion)) return 'success';
  return conclusion === 'cancelled' ? 'error' : 'failure';
};

const statusState = (state: string): State => (state === 'success' || state === 'failure' || state === 'error' ? state : 'pending');

/**
 * The latest report of each context and reporter on a commit, from its commit statuses (listed newest
 * first) and its check runs (a run's name is its context), latest last: check runs after statuses,
 * so where a check run and a status of one name both count, the check run does, as GitHub's required
 * checks accept either and a check run is what current CI systems report.
 */
export const mergeReports = (
  statuses: readonly { context: string; state: string; url: string | null; reporter?: string | null }[],
  checkRuns: readonly { name: string; status: string; conclusion: string | null; url: string | null; reporter?: string | null }[],
): ReportedStatus[] => {
  const out = new Map<string, ReportedStatus>();
  const put = (report: ReportedStatus): void => {
    const key = `${report.context}\0${report.reporter ?? ''}`;
    // Deleted first, a key moves to the end: the latest report last.
    out.delete(key);
    out.set(key, report);
  };
  for (const s of [...statuses].reverse())
    put({ context: s.context, state: statusState(s.state), ...(s.url ? { url: s.url } : {}), ...reporterOf(s) });
  for (const r of checkRuns)
    put({ context: r.name, state: checkRunState(r.status, r.conclusion), ...(r.url ? { url: r.url } : {}), ...reporterOf(r) });
  return [...out.values()];
};

const reporterOf = (x: { reporter?: string | null }): { reporter?: string } => (x.reporter ? { reporter: x.reporter } : {});
