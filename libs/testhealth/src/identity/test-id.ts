import { uuidV5, uuidVersion } from './uuid-v5';

/**
 * Everything that names a test case. Missing parts are empty strings: the id of a test changes
 * whenever any part changes (a file attribute added, a suite renamed), exactly as in Trunk.
 */
export interface TestIdentity {
  /** Organisation slug (Trunk's org_url_slug). */
  orgSlug: string;
  /** `host/owner/name`, e.g. `github.com/acme/shop`: the domain's formatRepo. */
  repoFullName: string;
  file?: string;
  classname?: string;
  /** Name of the enclosing test suite. */
  parent?: string;
  name: string;
  variant?: string;
  /** The testcase `id` attribute from the report, when the runner wrote one. */
  explicitId?: string;
}

const hashParts = (parts: readonly string[]): string => uuidV5(parts.join('#'));

/** The marker Trunk's uploader appends to every key; kept so our ids equal theirs. */
const TESTCASE_MARKER = 'JUNIT_TESTCASE';

function idOnce(t: TestIdentity, explicitId: string | undefined): string {
  const variant = t.variant ?? '';
  if (explicitId) {
    if (explicitId.startsWith('trunk:')) {
      return hashParts([t.orgSlug, t.repoFullName, explicitId, ...(variant ? [variant] : [])]);
    }
    if (uuidVersion(explicitId) === 5) {
      return variant ? hashParts([explicitId, variant]) : explicitId;
    }
  }
  const base = [t.orgSlug, t.repoFullName, t.file ?? '', t.classname ?? '', t.parent ?? '', t.name, TESTCASE_MARKER];
  return hashParts(variant ? [...base, variant] : base);
}

/**
 * Stable test id, bit-for-bit the one Trunk's analytics CLI derives, so
 * ids agree between a Trunk-compatible uploader, our server and our tests.
 *
 * Quirk kept on purpose: with a variant and no explicit id the key is hashed twice (the first id,
 * then `<id>#<variant>`); with an explicit id it is hashed once. An empty explicit id counts as none.
 */
export function testIdOf(t: TestIdentity): string {
  const explicitId = t.explicitId === '' ? undefined : t.explicitId;
  const first = idOnce(t, explicitId);
  if (!t.variant || explicitId !== undefined) return first;
  return idOnce(t, first);
}
