import type { PrStatus, QueueAnswer, QueueEntry } from './pr-target';

/** A check of the PR's current run with its log link, from getMergeQueueTestingDetails. */
export interface RunCheck {
  name: string;
  state: string;
  url?: string;
}

/** The run testing a PR: from the answer's lastTestRun, or found in the queue's history. */
export interface RunRef {
  id: string;
  testBranch: string;
}

export const waitingText = (entry: { waitingOn?: { message: string }[] }): string =>
  (entry.waitingOn ?? []).map((w) => w.message).join('; ');

const checksText = (checks: RunCheck[]): string =>
  checks.map((c) => `${c.name} ${c.state.toLowerCase()}${c.url ? ` ${c.url}` : ''}`).join(', ');

/** One line for where a PR stands now: the line `--wait` prints when it changes. */
export const progressLine = (
  pr: PrStatus,
  place: { position: number; depth: number } | undefined,
  checks: RunCheck[],
  current?: RunRef,
): string => {
  const parts = [`#${pr.prNumber} ${pr.state}`];
  if (place) parts.push(`position ${place.position} of ${place.depth}`);
  if (pr.state === 'testing' || pr.state === 'pending_failure') {
    const run = current ?? pr.lastTestRun;
    if (run) parts.push(run.testBranch ? `run ${run.id} on ${run.testBranch}` : `run ${run.id}`);
    if (checks.length > 0) parts.push(`checks: ${checksText(checks)}`);
  }
  // The checks listed already say which required statuses are missing.
  const waiting = waitingText({ waitingOn: (pr.waitingOn ?? []).filter((w) => checks.length === 0 || w.kind !== 'required_statuses') });
  if (waiting) parts.push(`waiting on: ${waiting}`);
  else if (pr.stateReason && pr.state !== 'testing') parts.push(pr.stateReason.message);
  return parts.join(' · ');
};

/** The last line: the verdict, with the reason and the failed checks' logs when the server explains them. */
export const verdictLine = (pr: PrStatus): string => {
  const parts = [`#${pr.prNumber} ${pr.state}`];
  if (pr.stateReason) parts.push(pr.stateReason.message);
  const failed = pr.lastTestRun?.failedChecks ?? [];
  if (pr.state === 'failed' && failed.length > 0)
    parts.push(`failed checks: ${failed.map((c) => (c.url ? `${c.name} ${c.url}` : c.name)).join(', ')}`);
  return parts.join(' · ');
};

/** `railyard status` without --json: the PR and what explains its state, one fact a line. */
export const statusText = (pr: PrStatus, place: { position: number; depth: number } | undefined): string => {
  const lines = [
    `#${pr.prNumber} ${JSON.stringify(pr.prTitle)} by ${pr.prAuthor} (${pr.prSha.slice(0, 12)} into ${pr.prBaseBranch})`,
    `state:      ${pr.state} since ${pr.stateChangedAt}`,
    `priority:   ${pr.priorityName} (${pr.priorityValue})${pr.noBatch ? ', never batched' : ''}`,
  ];
  if (place) lines.push(`position:   ${place.position} of ${place.depth}`);
  if (pr.stateReason) lines.push(`reason:     ${pr.stateReason.message} [${pr.stateReason.code}]`);
  for (const w of pr.waitingOn ?? []) lines.push(`waiting on: ${w.message}`);
  for (const n of pr.notes ?? []) lines.push(`note:       ${n.message}`);
  const run = pr.lastTestRun;
  if (run) {
    lines.push(`last run:   ${run.id} ${run.status} on ${run.testBranch}`);
    for (const c of run.failedChecks ?? []) lines.push(`  failed:   ${c.name}${c.url ? ` ${c.url}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
};

const table = (header: string[], rows: string[][]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
};

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** `railyard queue show`: a heading with the queue's state, then its PRs in queue order. */
export const queueTable = (q: QueueAnswer, label: string): string => {
  const entries: QueueEntry[] = q.enqueuedPullRequests;
  const heading = `${label}: ${q.state}, ${q.mode} mode, concurrency ${q.concurrency}${q.batch ? ', batching' : ''}; ${entries.length} PR(s)`;
  if (entries.length === 0) return `${heading}\n`;
  const withWaiting = entries.some((e) => (e.waitingOn ?? []).length > 0);
  const header = ['POS', 'PR', 'STATE', 'PRIORITY', 'SINCE', 'AUTHOR', 'TITLE', ...(withWaiting ? ['WAITING ON'] : [])];
  const rows = entries.map((e, i) => [
    String(i + 1),
    `#${e.number}`,
    e.state,
    `${e.priorityName}(${e.priority})`,
    e.stateChangedAt.replace(/\.\d+Z$/, 'Z'),
    clip(e.author, 20),
    clip(e.title, 40),
    ...(withWaiting ? [waitingText(e)] : []),
  ]);
  return `${heading}\n${table(header, rows)}\n`;
};
