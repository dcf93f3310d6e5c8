import type { QueueEvent } from '../../events';
import { evolve, initialQueueState, type QueueState } from '../../state';
import { NOW, specOf, untouchedCopyOf } from '../../testing/decider-spec';
import type { Action } from '../actions';
import type { EngineCommand } from '../commands';
import { decideEngine } from '../decide-engine';
import type { HostFacts } from '../facts';
import { plan } from '../plan';

const fold = (history: QueueEvent[]): QueueState => history.reduce(evolve, initialQueueState());

/** given(history).when(engineCommand).then(events): decideEngine's specs; the state given is checked to stay untouched. */
export const givenEngine = (history: QueueEvent[]) => specOf<EngineCommand>(decideEngine)(history);

/** given(history).plannedWith(facts, now).then(actions): the planner's specs. */
export const givenQueue = (history: QueueEvent[]) => {
  const state = fold(history);
  return {
    state,
    planned: (f: HostFacts, now = NOW): Action[] => {
      const before = untouchedCopyOf(state);
      const actions = plan(state, now, f);
      expect(untouchedCopyOf(state)).toStrictEqual(before);
      return actions;
    },
  };
};
