import { queueIdOf, queueStreamOf, type QueueEvent, type RepoRef } from '@railyard/domain';
import type { RecordedEvent } from '@railyard/eventstore';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { WebhookMessage } from '../messages';
import { trunkSchemaOf } from '../trunk-schemas';
import { TRUNK_EVENT_TYPES } from '../event-types';

export const REPO: RepoRef = { host: 'github.com', owner: 'acme', name: 'rocket' };
export const QUEUE_ID = queueIdOf(REPO, 'main');

type Data<T extends QueueEvent['type']> = Omit<Extract<QueueEvent, { type: T }>['data'], 'at'>;

/** A queue's log written by hand: each `add` records one event at the next position, a minute apart. */
export class LogBuilder {
  readonly events: RecordedEvent[] = [];
  constructor(readonly streamId: string = queueStreamOf(QUEUE_ID)) {}

  add<T extends QueueEvent['type']>(type: T, data: Data<T>): this {
    const n = this.events.length;
    const at = new Date(Date.UTC(2026, 11, 1, 9, n)).toISOString();
    this.events.push({
      streamId: this.streamId,
      revision: n,
      position: BigInt(n + 1),
      eventId: `ev-${n + 1}`,
      type,
      data: { ...data, at },
      metadata: { schemaVersion: 1, actor: 'test', correlationId: 'c', at },
      recordedAt: at,
    });
    return this;
  }

  created(): this {
    return this.add('QueueCreated', {
      queueId: QUEUE_ID,
      repo: REPO,
      branch: 'main',
      settings: {} as never,
      requiredStatuses: ['ci'],
      state: 'running',
    });
  }

  submitted(prNumber: number, state: 'pending' | 'not_ready' = 'pending'): this {
    return this.add('PrSubmitted', {
      prNumber,
      title: `PR ${prNumber}`,
      headSha: `sha${prNumber}`,
      author: 'octocat',
      baseBranch: 'main',
      entryId: `e${prNumber}`,
      priorityValue: 100,
      priorityName: 'medium',
      noBatch: false,
      readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, hasImpactedTargets: false, mergeability: 'mergeable' },
      state,
      reason: 'API_REQUESTED',
    });
  }

  testing(testRunId: string, prNumbers: number[], bisection = false): this {
    this.add('TestRunStarted', {
      testRunId,
      testBranch: `railyard/test/${testRunId}`,
      testBranchSha: `tsha-${testRunId}`,
      baseSha: 'base',
      prNumbers,
      dependentPrs: [],
      requiredStatuses: ['ci'],
      requiredStatusesSource: 'merge_instance',
      bisection,
    });
    for (const prNumber of prNumbers) this.add('PrTestingStarted', { prNumber, testRunId });
    return this;
  }
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map(TRUNK_EVENT_TYPES.map((t) => [t as string, ajv.compile(trunkSchemaOf(t))]));

/** What Trunk's published schema refuses in a message's payload; undefined when it fits (or the type is ours). */
export const trunkSchemaProblem = (type: string, payload: unknown): string | undefined => {
  const validate = validators.get(type);
  if (!validate || validate(payload)) return undefined;
  return ajv.errorsText(validate.errors);
};

export const typesOf = (messages: WebhookMessage[]): string[] => messages.map((m) => m.type);
