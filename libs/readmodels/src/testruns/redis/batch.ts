import type { PrDoc } from '../../queue/projection/docs';
import type { ScriptCall } from '../../redis/script';
import type { RedisKeys } from '../../redis/keys';
import type { PrTargetsDoc, TestRunDoc } from '../projection/docs';
import type { TestRunChanges, TestRunDocSet, TestRunRefs } from '../projection/project';

const parse = <T>(json: string | null | undefined): T | null => (json ? (JSON.parse(json) as T) : null);

/**
 * The keys a batch's test runs need, read in the same MGET as the other models, and how to turn the
 * values back into documents. PR documents are read as they stand before the batch is applied.
 */
export const testRunReads = (
  k: RedisKeys,
  refs: TestRunRefs,
): { keys: string[]; load(values: readonly (string | null | undefined)[]): TestRunDocSet } => {
  const runs = [...refs.runs.entries()];
  const targets = [...refs.targets.entries()];
  const prs = [...refs.prs.entries()];
  const keys = [
    ...runs.map(([, r]) => k.testRun(r.queueId, r.testRunId)),
    ...targets.map(([, p]) => k.testRunTargets(p.queueId, p.prNumber)),
    ...prs.map(([, p]) => k.pr(p.queueId, p.prNumber)),
  ];
  return {
    keys,
    load: (values) => {
      const docs: TestRunDocSet = { runs: new Map(), targets: new Map(), prs: new Map() };
      runs.forEach(([key], i) => docs.runs.set(key, parse<TestRunDoc>(values[i])));
      targets.forEach(([key], i) => docs.targets.set(key, parse<PrTargetsDoc>(values[runs.length + i])));
      prs.forEach(([key], i) => {
        const view = parse<PrDoc>(values[runs.length + targets.length + i])?.view;
        docs.prs.set(key, view ? { title: view.prTitle, headSha: view.prSha } : null);
      });
      return docs;
    },
  };
};

/** Adds the changed test-run documents to the batch's APPLY_BATCH call, so they land with the checkpoint. */
export const appendTestRunWrites = (call: ScriptCall, k: RedisKeys, docs: TestRunDocSet, changes: TestRunChanges): void => {
  const set = (key: string, value: unknown) => {
    call.keys.push(key);
    call.args.push('S', String(call.keys.length), JSON.stringify(value));
  };
  for (const key of changes.runs) {
    const doc = docs.runs.get(key);
    if (doc) set(k.testRun(doc.view.queueId, doc.view.testRunId), doc);
  }
  for (const key of changes.targets) {
    const doc = docs.targets.get(key);
    const [queueId, prNumber] = key.split('\u0000');
    if (doc && queueId !== undefined && prNumber !== undefined) set(k.testRunTargets(queueId, Number(prNumber)), doc);
  }
};
