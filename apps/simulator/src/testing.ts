import { parseWorkload, type Workload, type WorkloadInput } from './workload';

/** A small workload for specs: 30 PRs, 30-minute CI, nothing failing unless asked. */
export const smallWorkload = (o: Partial<WorkloadInput> = {}): Workload =>
  parseWorkload({ name: 'spec', prs: 30, arrivalsPerHour: 60, ci: { durationMinutes: 30 }, failureRate: 0, warmupMinutes: 0, ...o });
