import { isUrgent } from '../../priority';
import type { Entry } from '../../state';
import type { Action } from '../actions';
import { isSuspect, record, testingRuns, type Ctx, type Phase } from '../context';
import { currentRun, isRunNeeded } from '../runs';
import { busyRuns } from './stacks';

/** Entries behind the displaced ones that depend on one of them: their runs stack a PR that will now merge after them. */
const withDependents = (c: Ctx, displaced: Set<number>): void => {
  for (const e of c.chain) {
    if (displaced.has(e.prNumber)) continue;
    if (c.graph.closureAhead(e, (x) => x.flightSeq !== undefined).some((x) => displaced.has(x.prNumber))) displaced.add(e.prNumber);
  }
};

/** Slots the displaced set gives back: normal runs no kept PR tests on, and waiting places in flight that would have taken one first. */
const slotsFreed = (c: Ctx, displaced: ReadonlySet<number>): number => {
  let freed = 0;
  for (const run of testingRuns(c.s)) {
    if (run.bisection || !isRunNeeded(c.s, run)) continue;
    const testing = run.prNumbers.filter((n) => {
      const e = c.s.entries.get(n);
      return e?.state === 'testing' && e.testRunId === run.testRunId;
    });
    if (testing.every((n) => displaced.has(n))) freed++;
  }
  for (const e of c.chain) if (e.state === 'pending' && displaced.has(e.prNumber)) freed++;
  return freed;
};

/**
 * Urgent pre-emption (reference trunk §3): an urgent PR (priority 0) that would not get a slot this
 * round makes room. The lowest entries in flight, from the back of the queue, are displaced until
 * one normal slot is free: their runs are cancelled, they give up their places
 * (SKIP_THE_LINE_INTERRUPTED) and queue again behind it, and so does everything that stacked them.
 * An urgent PR is never displaced, and neither is anything ahead of one. Bisections keep running
 * unless they are behind a displaced entry.
 */
export const preemption: Phase = (c) => {
  if (!c.facts.target || (c.s.runState !== 'running' && c.s.runState !== 'draining')) return [];
  const urgent = c.order.find((e) => e.state === 'pending' && e.flightSeq === undefined);
  if (!urgent || !isUrgent(urgent.priorityValue)) return [];
  const placesAhead = c.chain.filter((e) => e.state === 'pending').length;
  const need = 1 - (c.s.settings.concurrency - busyRuns(c, false) - placesAhead);
  if (need <= 0) return [];

  const displaced = new Set<number>();
  for (let i = c.chain.length - 1; i >= 0 && slotsFreed(c, displaced) < need; i--) {
    const x = c.chain[i] as Entry;
    if (isUrgent(x.priorityValue)) break;
    if (displaced.has(x.prNumber) || isSuspect(c.s, x) || (x.state !== 'testing' && x.state !== 'pending')) continue;
    const run = currentRun(c.s, x);
    displaced.add(x.prNumber);
    for (const n of run?.prNumbers ?? []) if (c.s.entries.get(n)?.testRunId === run?.testRunId) displaced.add(n);
    withDependents(c, displaced);
  }
  if (slotsFreed(c, displaced) < need) return [];
  const out: Action[] = [];
  for (const e of c.chain)
    if (displaced.has(e.prNumber)) out.push(record({ type: 'RestartTests', prNumber: e.prNumber, reason: 'SKIP_THE_LINE_INTERRUPTED' }));
  return out;
};
