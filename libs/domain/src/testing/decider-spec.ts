import type { DecideContext, QueueCommand } from '../commands/types';
import { decide } from '../decide';
import { DomainError, type DomainErrorCode } from '../errors';
import type { QueueEvent } from '../events';
import { evolve, initialQueueState, type QueueState } from '../state';

/** The fixed clock every spec decides at; `given` events carry earlier times. */
export const NOW = '2025-06-01T12:00:00.000Z';

/** A fixed clock and a deterministic id source: `id-1`, `id-2`, … */
export const testContext = (now = NOW): DecideContext => {
  let n = 0;
  return { now, newId: () => `id-${++n}` };
};

/**
 * The given/when/then of a decider: given(history).when(command).then(events) / .thenThrows(code).
 * `adjust` edits the folded state for situations no event can reach yet (an entry in testing). Every
 * decision is also checked to leave the state it was given untouched.
 */
export const specOf =
  <C>(decideWith: (state: QueueState, command: C, ctx: DecideContext) => QueueEvent[]) =>
  (history: QueueEvent[] = [], adjust?: (s: QueueState) => void) => {
    const state = history.reduce(evolve, initialQueueState());
    adjust?.(state);
    return {
      state,
      when: (command: C, ctx: Partial<DecideContext> = {}) => {
        const run = (): QueueEvent[] => {
          const before = structuredClone(state);
          try {
            return decideWith(state, command, { ...testContext(), ...ctx });
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

/** The specs of the API's commands (decide). */
export const given = specOf<QueueCommand>(decide);
