import { createQueueRequest, updateQueueRequest, type CreateQueueRequest, type UpdateQueueRequest } from '@railyard/api-schema';
import type { QueueView } from '@railyard/readmodels';
import type { ZodError } from 'zod';

/**
 * The dashboard's queue forms as createQueue and updateQueue requests: the form's text fields become
 * the request's JSON types, and the API's own zod schemas judge the result, so the page accepts and
 * refuses exactly what the API does (docs/dashboard.md, "Admin actions").
 */

/** The settings the forms edit: numbers, yes/no choices and choices from a list. */
export const NUMBER_FIELDS = ['concurrency', 'testingTimeoutMinutes', 'pendingFailureDepth', 'flakeRetries'] as const;
export const CHOICE_FIELDS = ['mode', 'mergeMethod'] as const;
export const FLAG_FIELDS = ['batch'] as const;

export class FormError extends Error {}

const text = (form: Record<string, unknown>, name: string): string | undefined => {
  const v = form[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

/** An integer field stays text when it is not a number, so the schema's own message names the field. */
const numberOf = (raw: string): number | string => (/^-?\d+$/.test(raw) ? Number(raw) : raw);

const settingsOfForm = (form: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const name of NUMBER_FIELDS) {
    const v = text(form, name);
    if (v !== undefined) out[name] = numberOf(v);
  }
  for (const name of CHOICE_FIELDS) {
    const v = text(form, name);
    if (v !== undefined) out[name] = v;
  }
  for (const name of FLAG_FIELDS) {
    const v = text(form, name);
    if (v !== undefined) out[name] = v === 'yes' ? true : v === 'no' ? false : v;
  }
  return out;
};

const checksOf = (form: Record<string, unknown>): string[] | undefined =>
  text(form, 'requiredStatuses')
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);

const problemOf = (err: ZodError): string =>
  err.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');

/** The create form as a createQueue request, or a FormError saying what the API would refuse. */
export const createRequestOfForm = (form: Record<string, unknown>): CreateQueueRequest => {
  const checks = checksOf(form);
  const parsed = createQueueRequest.safeParse({
    repo: { host: text(form, 'host') ?? '', owner: text(form, 'owner') ?? '', name: text(form, 'name') ?? '' },
    targetBranch: text(form, 'targetBranch') ?? '',
    ...settingsOfForm(form),
    ...(checks && checks.length > 0 ? { requiredStatuses: checks } : {}),
  });
  if (!parsed.success) throw new FormError(problemOf(parsed.error));
  return parsed.data;
};

/**
 * The settings form of `queue` as an updateQueue request. The form shows the current required checks;
 * emptying the field clears them (the repository's configuration decides again).
 */
export const updateRequestOfForm = (queue: QueueView, form: Record<string, unknown>): UpdateQueueRequest => {
  const checks = checksOf(form) ?? [];
  const parsed = updateQueueRequest.safeParse({
    repo: queue.repo,
    targetBranch: queue.branch,
    ...settingsOfForm(form),
    ...(checks.length > 0 ? { requiredStatuses: checks } : queue.requiredStatuses.length > 0 ? { deleteRequiredStatuses: true } : {}),
  });
  if (!parsed.success) throw new FormError(problemOf(parsed.error));
  return parsed.data;
};
