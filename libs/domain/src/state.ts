import { DEFAULT_SETTINGS, type QueueMode, type QueueRunState, type QueueSettings } from './config';
import { entryStateAfter, isTerminal, type PrState, type QueueEvent, type Readiness, type TargetsRef } from './events';
import type { RepoRef } from './ids';
import type { PriorityName } from './priority';

export interface Entry {
  entryId: string;
  prNumber: number;
  title: string;
  headSha: string;
  author: string;
  baseBranch: string;
  priorityValue: number;
  priorityName: PriorityName;
  usedDefaultPriorityName?: PriorityName;
  noBatch: boolean;
  forceEnqueued: boolean;
  state: PrState;
  stateChangedAt: string;
  submittedAt: string;
  /** Submission order; FIFO within a priority level. */
  seq: number;
  readiness: Readiness;
}

export interface QueueState {
  exists: boolean;
  queueId: string;
  repo: RepoRef;
  branch: string;
  runState: QueueRunState;
  pendingMode?: QueueMode;
  settings: QueueSettings;
  /** The queue's own (manual) list; empty means "not set": the run takes the repository's config. */
  requiredStatuses: string[];
  /** Every PR ever submitted since the queue was (re)created, terminal ones included. */
  entries: Map<number, Entry>;
  /** Impacted targets per PR, per head SHA: the last upload for a SHA wins. */
  targets: Map<number, Map<string, TargetsRef>>;
  nextSeq: number;
}

export const initialQueueState = (): QueueState => ({
  exists: false,
  queueId: '',
  repo: { host: '', owner: '', name: '' },
  branch: '',
  runState: 'running',
  settings: { ...DEFAULT_SETTINGS },
  requiredStatuses: [],
  entries: new Map(),
  targets: new Map(),
  nextSeq: 0,
});

export const activeEntries = (s: QueueState): Entry[] => [...s.entries.values()].filter((e) => !isTerminal(e.state));

/** Queue order: priority first (lower value first), then submission order. */
export const byQueueOrder = (a: Entry, b: Entry): number => a.priorityValue - b.priorityValue || a.seq - b.seq;

export const targetsFor = (s: QueueState, prNumber: number, headSha: string): TargetsRef | undefined =>
  s.targets.get(prNumber)?.get(headSha);

// Old SHAs' uploads are useless once the PR moved on; keep a few so a quick push-and-revert still finds its list.
const TARGET_SHAS_KEPT = 8;

/**
 * Folds one event into the state. For speed on long streams it reuses the maps of the state it is
 * given: treat the input as consumed and keep only the returned state.
 */
export const evolve = (state: QueueState, event: QueueEvent): QueueState => {
  const s = applyQueueLevel(state, event);
  const moved = entryStateAfter(event);
  if (moved && event.type !== 'PrSubmitted') {
    const e = s.entries.get(moved.prNumber);
    if (e && e.state !== moved.state) s.entries.set(moved.prNumber, { ...e, state: moved.state, stateChangedAt: event.data.at });
  }
  return s;
};

const applyQueueLevel = (state: QueueState, event: QueueEvent): QueueState => {
  switch (event.type) {
    case 'QueueCreated': {
      const d = event.data;
      return {
        ...initialQueueState(),
        exists: true,
        queueId: d.queueId,
        repo: d.repo,
        branch: d.branch,
        runState: d.state,
        settings: { ...d.settings },
        requiredStatuses: [...d.requiredStatuses],
      };
    }
    case 'QueueConfigUpdated': {
      const { changes, requiredStatuses } = event.data;
      return {
        ...state,
        settings: { ...state.settings, ...changes },
        requiredStatuses: requiredStatuses === undefined ? state.requiredStatuses : (requiredStatuses ?? []),
      };
    }
    case 'QueueStateChanged':
      return { ...state, runState: event.data.to, pendingMode: event.data.pendingMode };
    case 'QueueDeleted':
      return { ...state, exists: false };
    case 'PrSubmitted': {
      const d = event.data;
      state.entries.set(d.prNumber, {
        entryId: d.entryId,
        prNumber: d.prNumber,
        title: d.title,
        headSha: d.headSha,
        author: d.author,
        baseBranch: d.baseBranch,
        priorityValue: d.priorityValue,
        priorityName: d.priorityName,
        usedDefaultPriorityName: d.usedDefaultPriorityName,
        noBatch: d.noBatch,
        forceEnqueued: false,
        state: d.state,
        stateChangedAt: d.at,
        submittedAt: d.at,
        seq: state.nextSeq,
        readiness: d.readiness,
      });
      return { ...state, nextSeq: state.nextSeq + 1 };
    }
    case 'PrPriorityChanged': {
      const e = state.entries.get(event.data.prNumber);
      if (!e) return state;
      const { priorityValue, priorityName, usedDefaultPriorityName, noBatch } = event.data;
      state.entries.set(e.prNumber, { ...e, priorityValue, priorityName, usedDefaultPriorityName, noBatch });
      return state;
    }
    case 'PrReadinessChanged': {
      const e = state.entries.get(event.data.prNumber);
      if (e) state.entries.set(e.prNumber, { ...e, readiness: event.data.readiness });
      return state;
    }
    case 'ImpactedTargetsSet': {
      const { prNumber, headSha, digest, count, all } = event.data;
      const perSha = state.targets.get(prNumber) ?? new Map<string, TargetsRef>();
      perSha.delete(headSha);
      perSha.set(headSha, { digest, count, all });
      while (perSha.size > TARGET_SHAS_KEPT) perSha.delete(perSha.keys().next().value as string);
      state.targets.set(prNumber, perSha);
      return state;
    }
    default:
      return state;
  }
};

export const foldQueue = (events: Iterable<QueueEvent>, from: QueueState = initialQueueState()): QueueState => {
  let s = from;
  for (const e of events) s = evolve(s, e);
  return s;
};
