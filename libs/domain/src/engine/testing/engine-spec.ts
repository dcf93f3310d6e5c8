import type { DecideContext } from '../../commands/types';
import { DomainError, type DomainErrorCode } from '../../errors';
import type { QueueEvent } from '../../events';
import { evolve, initialQueueState, type QueueState } from '../../state';
import { NOW, testContext } from '../../testing/decider-spec';
import type { Action } from '../actions';
import type { EngineCommand } from '../commands';
import { decideEngine } from '../decide-engine';
import type { HostFacts } from '../facts';
import { plan } from '../plan';

const fold = (history: QueueEvent[]): QueueState => history.reduce(evolve, initialQueueState());

/** given(history).when(engineCommand).then(events): decideEngine's specs; the state given is checked to stay untouched. */
export const givenEngine = (history: QueueEvent[]) => {
  const state = fold(history);
  return {
    state,
    when: (command: EngineCommand, ctx: Partial<DecideContext> = {}) => {
      const run = (): QueueEvent[] => {
        const before = structuredClone(state);
        try {
          return decideEngine(state, command, { ...testContext(), ...ctx });
        } finally {
          expect(state).toStrictEqual(before);
        }
      };
      return {
        events: run,
        then: (expected: QueueEvent[]): void => expect(run()).toStrictEqual(expected),
        thenThrows: (code: DomainErrorCode): void => {
          let error: unknown;
          try {
            run();
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(code);
        },
      };
    },
  };
};

/** given(history).plannedWith(facts, now).then(actions): the planner's specs. */
export const givenQueue = (history: QueueEvent[]) => {
  const state = fold(history);
  return {
    state,
    planned: (f: HostFacts, now = NOW): Action[] => {
      const before = structuredClone(state);
      const actions = plan(state, now, f);
      expect(state).toStrictEqual(before);
      return actions;
    },
  };
};
