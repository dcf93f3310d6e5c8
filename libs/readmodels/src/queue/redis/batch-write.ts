import type { BatchChanges, DocSet } from '../projection/batch';
import { isActive, queueOrderScore } from '../projection/order';
import type { RedisKeys } from '../../redis/keys';
import type { ScriptCall } from '../../redis/script';

/** Turns a folded batch into the APPLY_BATCH call that writes back what changed, plus the checkpoint. */
export const batchWrite = (k: RedisKeys, docs: DocSet, changes: BatchChanges, expected: string, next: string): ScriptCall => {
  const keys = [k.checkpoint];
  const index = new Map<string, string>();
  const ref = (key: string): string => {
    let i = index.get(key);
    if (i === undefined) {
      keys.push(key);
      i = String(keys.length);
      index.set(key, i);
    }
    return i;
  };
  const args = [expected, next];
  for (const queueId of changes.queueIds) {
    const doc = docs.queues.get(queueId);
    if (!doc) continue;
    args.push('S', ref(k.queue(queueId)), JSON.stringify(doc));
    // The index /readyz lists host problems from, kept in the same atomic write as the document.
    if (doc.view?.hostProblem) args.push('Z', ref(k.hostProblems), '0', queueId);
    else args.push('R', ref(k.hostProblems), queueId);
  }
  // Before the PR writes below, so PRs of the new generation are added back after the wipe.
  for (const queueId of changes.regenerated) args.push('D', ref(k.active(queueId)), 'D', ref(k.prNumbers(queueId)));
  for (const prKey of changes.prKeys) {
    const doc = docs.prs.get(prKey);
    if (!doc) continue;
    const { queueId, prNumber } = doc.view;
    args.push('S', ref(k.pr(queueId, prNumber)), JSON.stringify(doc));
    args.push('Z', ref(k.prNumbers(queueId)), String(prNumber), String(prNumber));
    const active = ref(k.active(queueId));
    if (isActive(docs.queues.get(queueId) ?? null, doc)) args.push('Z', active, String(queueOrderScore(doc.view)), String(prNumber));
    else args.push('R', active, String(prNumber));
  }
  return { keys, args };
};
