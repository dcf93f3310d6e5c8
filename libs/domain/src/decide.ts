import { decideCancelPullRequest, decideRestartTests, decideSetImpactedTargets, decideSubmitPullRequest } from './commands/pull-requests';
import { decideCreateQueue, decideDeleteQueue, decideUpdateQueue } from './commands/queue-admin';
import type { DecideContext, QueueCommand } from './commands/types';
import type { QueueEvent } from './events';
import type { QueueState } from './state';

/** Pure: same state, command and context give the same events. Throws DomainError when a rule is broken. */
export const decide = (state: QueueState, command: QueueCommand, ctx: DecideContext): QueueEvent[] => {
  switch (command.type) {
    case 'CreateQueue':
      return decideCreateQueue(state, command, ctx);
    case 'UpdateQueue':
      return decideUpdateQueue(state, command, ctx);
    case 'DeleteQueue':
      return decideDeleteQueue(state, command, ctx);
    case 'SubmitPullRequest':
      return decideSubmitPullRequest(state, command, ctx);
    case 'CancelPullRequest':
      return decideCancelPullRequest(state, command, ctx);
    case 'RestartTestsOnPullRequest':
      return decideRestartTests(state, command, ctx);
    case 'SetImpactedTargets':
      return decideSetImpactedTargets(state, command, ctx);
  }
};
