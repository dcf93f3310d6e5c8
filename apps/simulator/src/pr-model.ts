import type { PriorityName } from '@railyard/domain';
import type { Prng } from './prng';
import type { Workload } from './workload';

/** One modelled pull request: what the world knows about it and the queue does not. */
export interface SimPr {
  number: number;
  headSha: string;
  /** Every run whose tree contains it fails (unless the test misses it). */
  bad: boolean;
  /** Building it fails on a tree that holds this PR, or on any tree ('base'). */
  conflictsWith?: number | 'base';
  /** Areas it touches; 'all' is the bare ALL upload (parallel mode). */
  areas: readonly number[] | 'all';
  /** Undefined: submitted without a priority (medium). */
  priority?: Extract<PriorityName, 'urgent' | 'high' | 'low'>;
  /** When the author wanted to submit it (ms of simulated time). */
  arrivedAt: number;
  /** When it entered the queue; later than arrivedAt when the backlog was full. */
  submittedAt?: number;
  /** Direct-merge workloads: the verdict of the PR's own checks on its head, run before it was submitted. */
  headChecks?: 'success' | 'failure';
  /** Direct-merge workloads: the target's length in merges when the head was made; up to date while the target has not moved since. */
  baseVersion?: number;
}

const pickAreas = (w: Workload, rng: Prng): readonly number[] | 'all' => {
  const a = w.areas;
  if (!a) return [];
  if (!rng.chance(a.crossCutting)) return [rng.int(a.count)];
  if (a.crossCuttingAreas === 'all') return 'all';
  const chosen = new Set<number>();
  while (chosen.size < a.crossCuttingAreas) chosen.add(rng.int(a.count));
  return [...chosen].sort((x, y) => x - y);
};

const pickPriority = (w: Workload, rng: Prng): SimPr['priority'] => {
  const u = rng.next();
  let acc = 0;
  for (const name of ['urgent', 'high', 'low'] as const) {
    acc += w.priorities[name] ?? 0;
    if (u < acc) return name;
  }
  return undefined;
};

/**
 * Draws PR `number`'s nature. Every draw happens whatever the workload's rates, so the same seed gives
 * the same PRs in workloads that differ only in queue settings.
 */
export const generatePr = (w: Workload, number: number, rng: Prng, arrivedAt: number): SimPr => {
  const drawn = rng.chance(w.failureRate);
  const bad = w.badPrs ? w.badPrs.includes(number) : drawn;
  const conflictDraw = rng.next();
  const partnerDraw = rng.int(Math.max(1, Math.min(w.conflicts.window, number - 1)));
  let conflictsWith: SimPr['conflictsWith'];
  if (conflictDraw < w.conflicts.withBase) conflictsWith = 'base';
  else if (conflictDraw < w.conflicts.withBase + w.conflicts.withEarlier && number > 1) conflictsWith = number - 1 - partnerDraw;
  const areas = pickAreas(w, rng);
  const priority = pickPriority(w, rng);
  return {
    number,
    headSha: `head-${number}`,
    bad,
    ...(conflictsWith !== undefined ? { conflictsWith } : {}),
    areas,
    ...(priority ? { priority } : {}),
    arrivedAt,
  };
};

/** Two PRs depend on each other iff their targets overlap: ALL overlaps everything, an empty list nothing. */
export const overlaps = (a: SimPr, b: SimPr): boolean => {
  if (a.areas === 'all') return b.areas === 'all' || b.areas.length > 0;
  if (b.areas === 'all') return a.areas.length > 0;
  const bs = b.areas;
  return a.areas.some((x) => bs.includes(x));
};

/** The impacted-target names a PR uploads: `area-<i>/t<j>` for each area it touches. */
export const targetNames = (pr: SimPr, targetsPerArea: number): string[] | 'ALL' => {
  if (pr.areas === 'all') return 'ALL';
  const names: string[] = [];
  for (const a of pr.areas) for (let j = 0; j < targetsPerArea; j++) names.push(`area-${a}/t${j}`);
  return names;
};
