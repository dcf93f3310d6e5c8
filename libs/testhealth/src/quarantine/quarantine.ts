import type { TestStatus } from '../classify/types';

/** A per-test admin override; undefined = follow the automatic rule. */
export type QuarantineOverride = 'always' | 'never' | undefined;

/** The spec's `quarantine_setting` of a quarantined test. */
export type QuarantineSetting = 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE';

export interface QuarantineSwitches {
  /** Repository toggle "enable test quarantining"; nothing is quarantined without it. Default true. */
  enabled?: boolean;
  /** Repository toggle "auto-quarantine flaky tests". Default true. */
  autoQuarantine?: boolean;
}

/** What the automatic rule looks at: the status, and whether a FLAKY one is corroborated (evidence.ts). */
export interface QuarantineBasis {
  status: TestStatus;
  /** FLAKY without the runs of any single pull request (corroborationOf); false when unknown. */
  corroborated: boolean;
}

/**
 * Whether a test's failures stop blocking. `never` wins over everything, `always` quarantines
 * even a healthy test, otherwise only a FLAKY test whose flakiness is corroborated by more than one
 * origin is quarantined (corroborationOf: no pull request's own reports can quarantine a test). A
 * BROKEN test fails for a real reason and hiding it would let the break merge (Trunk stopped
 * auto-quarantining broken tests in 2025).
 */
export function isQuarantined(basis: QuarantineBasis, override: QuarantineOverride, switches: QuarantineSwitches = {}): boolean {
  if (switches.enabled === false || override === 'never') return false;
  if (override === 'always') return true;
  return basis.status === 'FLAKY' && basis.corroborated && switches.autoQuarantine !== false;
}

/** Setting to report for a test isQuarantined said yes to. */
export function quarantineSettingOf(override: QuarantineOverride): QuarantineSetting {
  return override === 'always' ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE';
}

export interface QuarantineVerdict {
  /** True only when there was at least one failure and every one of them is quarantined. */
  allQuarantined: boolean;
  quarantined: string[];
  notQuarantined: string[];
}

/**
 * "May this CI job ignore its failures?" `failures` are the ids of the tests that failed in the
 * job (flaky cases passed in the end and are not failures). `lookup` answers true when the test
 * is quarantined now; false or undefined (unknown test, lookup failed) counts as not quarantined,
 * so any doubt keeps the job red.
 *
 * An empty list answers false: a job that failed without a failing test failed for another
 * reason (build error, crash outside the report) that no quarantine covers.
 */
export function allFailuresQuarantined(failures: readonly string[], lookup: (testId: string) => boolean | undefined): QuarantineVerdict {
  const quarantined: string[] = [];
  const notQuarantined: string[] = [];
  for (const id of new Set(failures)) {
    let answer: boolean | undefined;
    try {
      answer = lookup(id);
    } catch {
      answer = undefined;
    }
    (answer === true ? quarantined : notQuarantined).push(id);
  }
  return { allQuarantined: quarantined.length > 0 && notQuarantined.length === 0, quarantined, notQuarantined };
}
