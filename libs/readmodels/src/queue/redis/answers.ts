import type { BatchChanges } from '../projection/batch';
import type { TestRunChanges } from '../../testruns/projection/project';
import type { ScriptCall } from '../../redis/script';
import type { RedisKeys } from '../../redis/keys';

/** Queues whose getQueue answer a batch changes: its queue, any of its PRs, or any of its runs changed. */
const queuesAffected = (changes: BatchChanges, runChanges: TestRunChanges): string[] => {
  const queueOfKey = (key: string) => key.slice(0, key.indexOf('\u0000'));
  const ids = new Set([...changes.queueIds, ...changes.regenerated]);
  for (const key of changes.prKeys) ids.add(queueOfKey(key));
  for (const key of runChanges.runs) ids.add(queueOfKey(key));
  return [...ids];
};

/**
 * Adds to the batch's APPLY_BATCH call, for every queue the batch touches, the deletion of its stored
 * getQueue and PR answers and a new answer version (the batch's checkpoint), atomically with the
 * documents. The answers are built by the next reads (answer-reads.ts): a batch costs what it changes, not the
 * length of the queue (docs/decisions.md D253, where writing every answer ahead made a re-submit in a
 * queue of 5,000 PRs cost 137 ms of projector CPU).
 */
export const appendAnswerInvalidation = (
  call: ScriptCall,
  k: RedisKeys,
  changes: BatchChanges,
  runChanges: TestRunChanges,
  version: string,
): void => {
  const op = (...args: string[]) => call.args.push(...args);
  const ref = (key: string): string => {
    call.keys.push(key);
    return String(call.keys.length);
  };
  for (const id of queuesAffected(changes, runChanges)) {
    op('D', ref(k.queueAnswer(id)));
    op('S', ref(k.answerVersion(id)), version);
    // The PR answers reads stored: a change of one PR can move every PR behind it.
    op('D', ref(k.prAnswers(id)));
    for (const stale of k.staleQueueAnswers(id)) op('D', ref(stale));
  }
};
