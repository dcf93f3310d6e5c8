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
 * The latest report of each context on a commit, from its commit statuses (listed newest first) and
 * its check runs (a run's name is its context), in the order contexts first appeared. A check run
 * and a status of one name: the check run counts, as GitHub's required checks accept either and a
 * check run is what current CI systems report.
 */
export const mergeReports = (
  statuses: readonly { context: string; state: string; url: string | null; reporter?: string | null }[],
  checkRuns: readonly { name: string; status: string; conclusion: string | null; url: string | null; reporter?: string | null }[],
): ReportedStatus[] => {
  const out = new Map<string, ReportedStatus>();
  for (const s of [...statuses].reverse()) {
    // A Map keeps a key where it was first set: the order contexts appeared, each with its latest state.
    out.set(s.context, { context: s.context, state: statusState(s.state), ...(s.url ? { url: s.url } : {}), ...reporterOf(s) });
  }
  for (const r of checkRuns)
    out.set(r.name, { context: r.name, state: checkRunState(r.status, r.conclusion), ...(r.url ? { url: r.url } : {}), ...reporterOf(r) });
  return [...out.values()];
};

const reporterOf = (x: { reporter?: string | null }): { reporter?: string } => (x.reporter ? { reporter: x.reporter } : {});
