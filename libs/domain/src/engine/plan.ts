import type { QueueState } from '../state';
import type { Action } from './actions';
import { contextOf, type Phase } from './context';
import type { HostFacts } from './facts';
import { reentries } from './phases/beside';
import { bisections, skipRedundant } from './phases/bisection';
import { optimisticPasses, restartsAndBlame, unwitnessedBlame } from './phases/failures';
import { infrastructureRetries } from './phases/infrastructure';
import { hostChanges, recogniseMerges, statusReports, sweepBranches } from './phases/host';
import { directMerge, merges } from './phases/merges';
import { completeModeSwitch } from './phases/mode-switch';
import { runOutcomes } from './phases/outcomes';
import { preemption } from './phases/preemption';
import { starts } from './phases/starts';

export { staleness } from './staleness';

const PHASES: Phase[] = [
  recogniseMerges,
  hostChanges,
  statusReports,
  runOutcomes,
  infrastructureRetries,
  skipRedundant,
  optimisticPasses,
  reentries,
  restartsAndBlame,
  merges,
  directMerge,
  completeModeSwitch,
  bisections,
  preemption,
  starts,
  unwitnessedBlame,
  sweepBranches,
];

/**
 * The merge engine's brain: what to do next for one queue, given its state, the time and what the
 * host and CI say now. Pure and deterministic. Phases run in order and the first with something to
 * do wins; the engine carries those actions out, records them and plans again until nothing is left.
 * Doing one kind of thing per round keeps every decision based on a state that already holds the
 * previous ones (a merge is recognised before anything could mistake it for a foreign push, restarts
 * land before new runs are stacked, and so on). docs/engine.md describes each phase.
 */
export const plan = (s: QueueState, now: string, facts: HostFacts): Action[] => {
  if (!s.exists) return [];
  const c = contextOf(s, now, facts);
  for (const phase of PHASES) {
    const actions = phase(c);
    if (actions.length > 0) return actions;
  }
  return [];
};
