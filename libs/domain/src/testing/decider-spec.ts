import type { DecideContext, QueueCommand } from '../commands/types';
import { decide } from '../decide';
import { DomainError, type DomainErrorCode } from '../errors';
import type { QueueEvent } from '../events';
import { planOrderIndexOf } from '../entry-order';
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
/**
 * A deep copy of a state to check it stayed untouched: the entries as a plain Map (the state's own
 * files them into the plan order, which a copy cannot be compared with) and that plan order beside them.
 */
export const untouchedCopyOf = (s: QueueState): unknown => {
  const index = planOrderIndexOf(s.entries);
  return structuredClone({ ...s, entries: new Map(s.entries), planOrder: { started: [...index.started], waiting: [...index.waiting] } });
};

export const specOf =
  <C>(decideWith: (state: QueueState, command: C, ctx: DecideContext) => QueueEvent[]) =>
  (history: QueueEvent[] = [], adjust?: (s: QueueState) => void) => {
    const state = history.reduce(evolve, initialQueueState());
    adjust?.(state);
    return {
      state,
      when: (command: C, ctx: Partial<DecideContext> = {}) => {
        const run = (): QueueEvent[] => {
          const before = untouchedCopyOf(state);
          try {
            return decideWith(state, command, { ...testContext(), ...ctx });
          } finally {
            expect(untouchedCopyOf(state)).toStrictEqual(before);
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
