import { DEFAULT_SETTINGS, MAX_BATCH_SIZE, MAX_FLAKE_RETRIES, MAX_UINT32, type QueueSettings, type RequestableQueueState } from '../config';
import { DomainError } from '../errors';
import type { PrReadinessChanged, QueueEvent, StatusReporters } from '../events';
import { readinessChange, readinessOf } from '../readiness';
import { activeEntries, targetsFor, type QueueState } from '../state';
import { requireInteger, requireQueue } from './guards';
import type { CreateQueue, DecideContext, DeleteQueue, QueueSettingsInput, UpdateQueue } from './types';

const validateSettings = (s: QueueSettingsInput): void => {
  for (const key of [
    'concurrency',
    'bisectionConcurrency',
    'testingTimeoutMinutes',
    'batchingMaxWaitTimeMinutes',
    'batchingMinSize',
  ] as const) {
    const v = s[key];
    if (v !== undefined) requireInteger(key, v, 1, MAX_UINT32);
  }
  // 0 is accepted: it is the documented default ("do not wait for PRs behind"), see docs/decisions.md.
  if (s.pendingFailureDepth !== undefined) requireInteger('pendingFailureDepth', s.pendingFailureDepth, 0, MAX_UINT32);
  if (s.flakeRetries !== undefined) requireInteger('flakeRetries', s.flakeRetries, 0, MAX_FLAKE_RETRIES);
  if (s.flakeRetryConcurrency !== undefined) requireInteger('flakeRetryConcurrency', s.flakeRetryConcurrency, 0, MAX_UINT32);
  if (s.batchingMaxSize !== undefined) requireInteger('batchingMaxSize', s.batchingMaxSize, 1, MAX_BATCH_SIZE);
};

/** `{ concurrency: undefined }` means "not given", as it does for validation: drop such keys before merging or diffing. */
const givenSettings = (s: QueueSettingsInput | undefined): QueueSettingsInput =>
  Object.fromEntries(Object.entries(s ?? {}).filter(([, v]) => v !== undefined));

const validateRequiredStatuses = (list: string[] | undefined): void => {
  if (list?.some((x) => x.trim() === '')) throw new DomainError('INVALID_ARGUMENT', 'requiredStatuses must not hold empty names');
};

/** Each context named once with at least one reporter; names trimmed of nothing, kept once each, in the order given. */
const cleanReporters = (r: StatusReporters | undefined): StatusReporters | undefined => {
  if (r === undefined) return undefined;
  const out: StatusReporters = {};
  for (const [context, who] of Object.entries(r)) {
    if (context.trim() === '') throw new DomainError('INVALID_ARGUMENT', 'statusReporters must not name an empty context');
    if (who.length === 0 || who.some((x) => x.trim() === ''))
      throw new DomainError('INVALID_ARGUMENT', `statusReporters.${context} must name at least one reporter, none empty`);
    out[context] = [...new Set(who)];
  }
  return out;
};

const sameReporters = (a: StatusReporters, b: StatusReporters): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] !== undefined && b[k].join('\n') === a[k]?.join('\n'));
};

export const decideCreateQueue = (s: QueueState, c: CreateQueue, ctx: DecideContext): QueueEvent[] => {
  if (s.exists) throw new DomainError('QUEUE_ALREADY_EXISTS', `a merge queue already exists for branch "${c.branch}" in this repository`);
  validateSettings(c.settings ?? {});
  validateRequiredStatuses(c.requiredStatuses);
  const statusReporters = cleanReporters(c.statusReporters);
  const settings: QueueSettings = { ...DEFAULT_SETTINGS, ...givenSettings(c.settings) };
  return [
    {
      type: 'QueueCreated',
      data: {
        queueId: c.queueId,
        repo: c.repo,
        branch: c.branch,
        settings,
        requiredStatuses: [...new Set(c.requiredStatuses ?? [])],
        ...(statusReporters && Object.keys(statusReporters).length > 0 ? { statusReporters } : {}),
        state: c.state ?? 'running',
        at: ctx.now,
      },
    },
  ];
};

/** PRs whose readiness moves when the queue's mode does (parallel mode requires impacted targets). */
export const readinessAfterModeChange = (s: QueueState, mode: QueueSettings['mode'], now: string): PrReadinessChanged[] =>
  activeEntries(s).flatMap((e) => {
    const readiness = readinessOf({
      mode,
      queueBranch: s.branch,
      baseBranch: e.baseBranch,
      mergeability: e.readiness.mergeability,
      hasImpactedTargets: targetsFor(s, e.prNumber, e.headSha) !== undefined,
    });
    const change = readinessChange(e, readiness, now);
    return change ? [change] : [];
  });

const IN_FLIGHT = new Set(['testing', 'tests_passed', 'pending_failure']);

export const decideUpdateQueue = (s: QueueState, c: UpdateQueue, ctx: DecideContext): QueueEvent[] => {
  requireQueue(s);
  const settings = givenSettings(c.settings);
  validateSettings(settings);
  validateRequiredStatuses(c.requiredStatuses);
  const statusReporters = cleanReporters(c.statusReporters);
  if (c.deleteRequiredStatuses && c.requiredStatuses?.length)
    throw new DomainError('INVALID_ARGUMENT', 'requiredStatuses and deleteRequiredStatuses cannot be given together');
  // Every change waits, state included: a state change would otherwise drop the pending mode switch.
  if (
    s.runState === 'switching_modes' &&
    (Object.keys(settings).length > 0 ||
      c.requiredStatuses?.length ||
      c.deleteRequiredStatuses ||
      c.statusReporters !== undefined ||
      c.state !== undefined)
  )
    throw new DomainError('MODE_CHANGE_IN_PROGRESS', 'the queue is switching modes; configuration changes wait until it has finished');

  const events: QueueEvent[] = [];
  const { mode, ...rest } = settings;
  const changes: Partial<QueueSettings> = Object.fromEntries(
    Object.entries(rest).filter(([k, v]) => s.settings[k as keyof QueueSettings] !== v),
  );
  const modeChanges = mode !== undefined && mode !== s.settings.mode;
  const inFlight = activeEntries(s).some((e) => IN_FLIGHT.has(e.state));
  if (modeChanges && !inFlight) changes.mode = mode;

  // An empty list was ignored by Trunk's v1; only a non-empty list overrides.
  const newList = c.requiredStatuses?.length ? [...new Set(c.requiredStatuses)] : undefined;
  const listChanges = newList && newList.join('\n') !== s.requiredStatuses.join('\n');
  const listCleared = c.deleteRequiredStatuses === true && s.requiredStatuses.length > 0;
  const reportersChange = statusReporters !== undefined && !sameReporters(statusReporters, s.statusReporters);
  if (Object.keys(changes).length > 0 || listChanges || listCleared || reportersChange) {
    const data: { changes: Partial<QueueSettings>; requiredStatuses?: string[] | null; statusReporters?: StatusReporters; at: string } = {
      changes,
      at: ctx.now,
    };
    if (listChanges) data.requiredStatuses = newList;
    if (listCleared) data.requiredStatuses = null;
    if (reportersChange) data.statusReporters = statusReporters;
    events.push({ type: 'QueueConfigUpdated', data });
  }
  if (modeChanges && !inFlight) events.push(...readinessAfterModeChange(s, mode, ctx.now));

  const target = modeChanges && inFlight ? 'switching_modes' : c.state;
  if (target !== undefined && target !== s.runState) {
    const data: { from: typeof s.runState; to: typeof target; pendingMode?: typeof mode; resumeState?: RequestableQueueState; at: string } =
      {
        from: s.runState,
        to: target,
        at: ctx.now,
      };
    if (target === 'switching_modes') data.pendingMode = mode;
    // A state asked for with the mode change is where the queue goes once the switch is done.
    if (target === 'switching_modes' && c.state !== undefined && c.state !== s.runState) data.resumeState = c.state;
    events.push({ type: 'QueueStateChanged', data });
  }
  return events;
};

export const decideDeleteQueue = (s: QueueState, _c: DeleteQueue, ctx: DecideContext): QueueEvent[] => {
  requireQueue(s);
  const active = activeEntries(s).length;
  if (active > 0)
    throw new DomainError(
      'QUEUE_NOT_EMPTY',
      `the queue still holds ${active} PR(s); cancel or merge them first (set it to draining to let it empty)`,
    );
  return [{ type: 'QueueDeleted', data: { at: ctx.now } }];
};
