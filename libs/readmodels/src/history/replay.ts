import {
  activeEntries,
  byQueueOrder,
  evolve,
  explainQueue,
  explainRunOfTestRun,
  initialQueueState,
  type QueueEvent,
  type QueueState,
} from '@railyard/domain';
import { prViewOf } from '../queue/projection/pr-view';
import { getQueueResponse, queueViewOfState } from '../queue/views';

/** What replay needs of an event: its type, data and decision time (a HistoryEntry has all three). */
export interface ReplayableEvent {
  type: string;
  data: unknown;
  time: string;
}

/** The write side's state after the events of the stream up to the first one decided after `at`. */
export const queueStateAt = (events: Iterable<ReplayableEvent>, at: string): QueueState => {
  const limit = Date.parse(at);
  let state = initialQueueState();
  for (const e of events) {
    // Stops rather than skips: the state is always that of a prefix of the stream, as readers saw it,
    // even where two writers' clocks disagree a little and times are not monotonic.
    if (Date.parse(e.time) > limit) break;
    state = evolve(state, { type: e.type, data: e.data } as QueueEvent);
  }
  return state;
};

/**
 * The queue as getQueue would have answered at `at`, rebuilt from the events alone; null when the
 * queue did not exist then (not yet created, or deleted).
 */
export const replayQueue = (events: Iterable<ReplayableEvent>, at: string): Record<string, unknown> | null => {
  const state = queueStateAt(events, at);
  if (!state.exists) return null;
  const entries = activeEntries(state).sort(byQueueOrder);
  const explanations = explainQueue({ state: state.runState, settings: state.settings }, entries, (e) => {
    const run = e.lastTestRunId === undefined ? undefined : state.runs.get(e.lastTestRunId);
    return run ? explainRunOfTestRun(run) : undefined;
  });
  return getQueueResponse(
    queueViewOfState(state),
    entries.map((e) => prViewOf(state.queueId, e)),
    explanations,
  );
};
