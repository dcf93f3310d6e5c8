import request from 'supertest';
import { poster, REPO } from './client';

export type Outcome = 'pass' | 'fail' | 'skip' | 'flaky';

export interface CaseSpec {
  name: string;
  outcome: Outcome;
  file?: string;
  classname?: string;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** A small jest-junit style report: one suite, cases with a file attribute so code owners resolve. */
export const junitXml = (cases: CaseSpec[], suite = 'suite'): string => {
  const body = cases
    .map((c) => {
      const attrs = `name="${escape(c.name)}" classname="${escape(c.classname ?? suite)}" file="${escape(c.file ?? `src/${suite}.test.ts`)}"`;
      if (c.outcome === 'pass') return `<testcase ${attrs}/>`;
      if (c.outcome === 'skip') return `<testcase ${attrs}><skipped/></testcase>`;
      if (c.outcome === 'flaky') return `<testcase ${attrs}><flakyFailure message="first try"/></testcase>`;
      return `<testcase ${attrs}><failure message="expected 1 to be 2">stack</failure></testcase>`;
    })
    .join('\n  ');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${escape(suite)}" tests="${cases.length}">\n  ${body}\n</testsuite>\n`;
};

export interface UploadMeta {
  sha: string;
  branch?: string;
  job?: string;
  pr?: number;
}

/** Test-health calls over HTTP against one server, with one token, about one repository. */
export const testHealthClient = (url: string, token: string, org: string, repo: typeof REPO = REPO) => {
  const post = poster(url, token);
  return {
    post,
    /** A bare POST with the token and nothing else, for bodies the other helpers would not send. */
    raw: (path: string) => request(url).post(`/v1${path}`).set('x-api-token', token),
    /** The XML form: body as application/xml, metadata in the query string. */
    uploadXml: (xml: string | Buffer, meta: UploadMeta, contentType = 'application/xml') =>
      request(url)
        .post('/v1/uploadTestResults')
        .query({
          repo: `${repo.host}/${repo.owner}/${repo.name}`,
          sha: meta.sha,
          branch: meta.branch ?? 'main',
          ...(meta.job ? { job: meta.job } : {}),
          ...(meta.pr ? { pr: String(meta.pr) } : {}),
        })
        .set('x-api-token', token)
        .set('content-type', contentType)
        .send(typeof xml === 'string' ? Buffer.from(xml) : xml),
    uploadCases: (cases: CaseSpec[], meta: UploadMeta, suite?: string) =>
      post('/uploadTestResults', {
        repo,
        sha: meta.sha,
        branch: meta.branch ?? 'main',
        ...(meta.job ? { job: meta.job } : {}),
        ...(meta.pr ? { prNumber: meta.pr } : {}),
        files: [{ name: 'junit.xml', contentBase64: Buffer.from(junitXml(cases, suite)).toString('base64') }],
      }),
    unhealthy: (status: string, pageQuery: object = {}) =>
      post('/flaky-tests/list-unhealthy-tests', { repo, org_url_slug: org, status, page_query: pageQuery }),
    quarantined: (pageQuery: object = {}) =>
      post('/flaky-tests/list-quarantined-tests', { repo, org_url_slug: org, page_query: pageQuery }),
    setQuarantine: (testId: string, quarantine: string) => post('/flaky-tests/set-quarantine', { repo, testId, quarantine }),
    check: (failures: object[]) => post('/flaky-tests/check-failures', { repo, failures }),
    details: (testId: string) => post('/flaky-tests/get-test-details', { repo, test_id: testId }),
  };
};

/** A fake but well-formed commit id, distinct per label. */
export const shaOf = (label: string): string => Buffer.from(label).toString('hex').padEnd(40, '0').slice(0, 40);

/** A case of the cart suite (src/cart/totals.test.ts), the test-health suites' usual flaky test. */
export const cartCase = (name: string, outcome: CaseSpec['outcome']): CaseSpec => ({
  name,
  outcome,
  file: 'src/cart/totals.test.ts',
  classname: 'cart',
});
