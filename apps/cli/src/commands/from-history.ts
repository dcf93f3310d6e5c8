import { postJson } from '../http';
import type { PrStatus, QueueTarget } from './pr-target';

interface Entry {
  type: string;
  prNumber?: number;
  reason: string | null;
  data: { testRunId?: string; detail?: string };
}

/**
 * The PR's events since its last change of state, from getQueueHistory (read scope). A fallback for
 * servers whose answers carry no lastTestRun or stateReason: the queue's stream has both facts.
 */
const eventsSinceChange = async (t: QueueTarget, pr: PrStatus): Promise<Entry[]> => {
  const page = await postJson<{ events: Entry[] }>(t.api, '/getQueueHistory', {
    ...t.key,
    since: pr.stateChangedAt,
    page_query: { page_size: 1000 },
  });
  return page.events.filter((e) => e.prNumber === pr.prNumber);
};

/** The id of the run testing the PR now, when the server does not name it. */
export const runIdFromHistory = async (t: QueueTarget, pr: PrStatus): Promise<string | undefined> =>
  (await eventsSinceChange(t, pr)).reverse().find((e) => e.type === 'PrTestingStarted')?.data.testRunId;

/** Why the PR failed or was cancelled (the event's reason code and detail), when the server does not say. */
export const verdictReasonFromHistory = async (t: QueueTarget, pr: PrStatus): Promise<PrStatus['stateReason']> => {
  const last = (await eventsSinceChange(t, pr)).reverse().find((e) => e.type === 'PrFailed' || e.type === 'PrCancelled');
  if (!last?.reason) return undefined;
  return { code: last.reason, message: last.data.detail ? `${last.reason}: ${last.data.detail}` : last.reason };
};
