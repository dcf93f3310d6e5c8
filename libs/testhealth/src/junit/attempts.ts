import { attrOf, childrenOf, textOf } from './nodes';
import { truncate } from './text';
import type { CaseStatus, FailureKind } from './types';
import { positionOf, type XmlNode } from './xml';

export interface Failure {
  kind: FailureKind;
  message: string;
}

/** What one or more runs of a case amount to; folds associatively across duplicates and files. */
export interface AttemptSummary {
  status: CaseStatus;
  attempts: number;
  failedAttempts: number;
  lastFailure?: Failure;
}

const FAILURE_TAGS = ['failure', 'error', 'rerunFailure', 'rerunError', 'flakyFailure', 'flakyError'];
const SKIPPED_MARKERS = new Set(['notrun', 'skipped', 'disabled', 'suppressed']);

function failureOf(el: XmlNode, kind: FailureKind, maxMessageLength: number): Failure {
  const message = attrOf(el, 'message')?.trim() ?? '';
  // Surefire rerun elements keep the trace in a child; plain failures keep it as element text.
  const body = textOf(el) || childrenOf(el, 'stackTrace').map(textOf).join('\n');
  const full = message && body && !body.startsWith(message) ? `${message}\n${body}` : message || body;
  return { kind, message: truncate(full, maxMessageLength).text };
}

/** Failures under any of the tags, in document order. */
function failuresOf(el: XmlNode, tags: ReadonlyArray<[string, FailureKind]>, max: number): Failure[] {
  return tags
    .flatMap(([tag, kind]) => childrenOf(el, tag).map((f) => ({ at: positionOf(f), failure: failureOf(f, kind, max) })))
    .sort((a, b) => a.at - b.at)
    .map((f) => f.failure);
}

/**
 * The runs one <testcase> element records, in order:
 * flakyFailure/flakyError are failed runs before a final pass; failure/error is the first failed
 * run and rerunFailure/rerunError the later failed ones. Several <failure> children are one run.
 */
export function attemptsOfCase(el: XmlNode, maxMessageLength: number): AttemptSummary {
  if (!FAILURE_TAGS.some((tag) => Object.hasOwn(el, tag))) return unfailed(el);
  const first = failuresOf(
    el,
    [
      ['failure', 'failure'],
      ['error', 'error'],
    ],
    maxMessageLength,
  );
  const reruns = failuresOf(
    el,
    [
      ['rerunFailure', 'failure'],
      ['rerunError', 'error'],
    ],
    maxMessageLength,
  );
  const flakes = failuresOf(
    el,
    [
      ['flakyFailure', 'failure'],
      ['flakyError', 'error'],
    ],
    maxMessageLength,
  );

  if (first.length > 0 || reruns.length > 0) {
    const failed = (first.length > 0 ? 1 : 0) + reruns.length;
    return { status: 'failed', attempts: failed, failedAttempts: failed, lastFailure: reruns.at(-1) ?? first[0] };
  }
  if (flakes.length > 0) {
    return { status: 'flaky', attempts: flakes.length + 1, failedAttempts: flakes.length, lastFailure: flakes.at(-1) };
  }
  return unfailed(el);
}

function unfailed(el: XmlNode): AttemptSummary {
  const marker = (attrOf(el, 'status') ?? attrOf(el, 'result') ?? '').toLowerCase();
  if (Object.hasOwn(el, 'skipped') || SKIPPED_MARKERS.has(marker)) return { status: 'skipped', attempts: 0, failedAttempts: 0 };
  return { status: 'passed', attempts: 1, failedAttempts: 0 };
}

/**
 * `later` ran after `earlier`. The last run decides pass or fail; a pass after any failure is flaky.
 * A skipped run changes nothing.
 */
export function foldAttempts(earlier: AttemptSummary, later: AttemptSummary): AttemptSummary {
  if (later.attempts === 0) return earlier;
  if (earlier.attempts === 0) return later;
  const attempts = earlier.attempts + later.attempts;
  const failedAttempts = earlier.failedAttempts + later.failedAttempts;
  const status: CaseStatus = later.status === 'failed' ? 'failed' : failedAttempts > 0 ? 'flaky' : 'passed';
  const lastFailure = later.lastFailure ?? earlier.lastFailure;
  return lastFailure ? { status, attempts, failedAttempts, lastFailure } : { status, attempts, failedAttempts };
}
