import { record, type Phase } from '../context';
import { isInFlight } from '../runs';

/**
 * A mode change asked for while PRs were in flight completes once none is left in flight (reference
 * trunk §5.5): the new mode takes effect, readiness follows it (parallel mode requires impacted
 * targets), and the queue returns to the state it was in.
 */
export const completeModeSwitch: Phase = (c) => {
  if (c.s.runState !== 'switching_modes' || c.s.pendingMode === undefined) return [];
  return c.order.some(isInFlight) ? [] : [record({ type: 'CompleteModeSwitch' })];
};
