import { DomainError } from '../errors';
import { isTerminal } from '../events';
import { entryOf, type Entry, type QueueState } from '../state';

export const requireQueue = (s: QueueState): void => {
  if (!s.exists) throw new DomainError('QUEUE_NOT_FOUND', 'no queue exists for this repository and branch');
};

export const requireEntry = (s: QueueState, prNumber: number): Entry => {
  requireQueue(s);
  const e = entryOf(s, prNumber);
  if (!e) throw new DomainError('PR_NOT_IN_QUEUE', `PR #${prNumber} was never submitted to this queue`);
  return e;
};

export const requireActiveEntry = (s: QueueState, prNumber: number): Entry => {
  const e = requireEntry(s, prNumber);
  if (isTerminal(e.state)) throw new DomainError('PR_NOT_IN_ACTIVE_STATE', `PR #${prNumber} is ${e.state}; it is no longer in the queue`);
  return e;
};

export const requireInteger = (name: string, value: number, min: number, max: number): void => {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new DomainError('INVALID_ARGUMENT', `${name} must be an integer from ${min} to ${max}`);
};
