import { newTestDoc } from '@railyard/readmodels';
import { testBody } from './test';

const doc = newTestDoc(
  {
    repo: { host: 'git.local', owner: 'acme', name: 'widgets' },
    repoId: 'r',
    id: 't1',
    name: 'adds',
    classname: 'Cart',
    file: 'a.test.ts',
    parent: '',
    variant: '',
  },
  '2026-03-01T09:00:00.000Z',
);
const now = Date.parse('2026-03-02T09:00:00.000Z');
const rates = { last7d: 0.25, last24h: 0 };
const run = (minute: number, outcome: 'passed' | 'failed') => ({
  at: new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString(),
  commitSha: 'a'.repeat(40),
  branch: 'main',
  outcome,
});

describe('the test page', () => {
  it('when a ticket is a web address, then it is a link; when it is a urn (no RAILYARD_TICKET_URL), then it is only shown', () => {
    const linked = testBody({ doc: { ...doc, ticketUrl: 'https://tracker.example.org/KAN-1' }, rates, runs: [], now }).value;
    expect(linked).toContain('<a href="https://tracker.example.org/KAN-1">');
    const named = testBody({ doc: { ...doc, ticketUrl: 'urn:x-ticket:KAN-1' }, rates, runs: [], now }).value;
    expect(named).toContain('urn:x-ticket:KAN-1');
    expect(named).not.toContain('href="urn:');
  });

  it('when a failure message holds markup, then it is shown as text', () => {
    const failures = [{ summary: '<img src=x onerror=alert(1)>', count: 2, last: '2026-03-01T10:00:00.000Z' }];
    const page = testBody({ doc: { ...doc, failures }, rates, runs: [], now }).value;
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain('<img');
  });

  it('when there are more runs than are shown, then the newest come first and the oldest are left out', () => {
    const runs = Array.from({ length: 25 }, (_, i) => run(i, i === 24 ? 'failed' : 'passed'));
    const page = testBody({ doc, rates, runs, now }).value;
    expect(page.match(/<tr>/g)?.length).toBe(1 + 20);
    expect(page.indexOf('10:24')).toBeGreaterThan(-1);
    expect(page).not.toContain('10:04 ');
  });
});
