import { createLogger } from '@railyard/observability';
import { JUnitParsePool, ParserBusyError } from './parse-pool';
import type { ParseTask } from './parse-task';

const logger = createLogger('test', 'error');
const task = (xml: string): ParseTask => ({
  files: [{ name: 'r.xml', bytes: Buffer.from(xml) }],
  orgSlug: 'o',
  repo: { host: 'git.test', owner: 'acme', name: 'w' },
  maxFileBytes: 1024 * 1024,
  maxUploadCases: 100_000,
  maxUploadXmlBytes: 2 * 1024 * 1024,
});

jest.setTimeout(30_000);

describe('JUnitParsePool', () => {
  it('when reports are parsed in worker threads, then the outcomes equal parsing in place, in order', async () => {
    const pool = new JUnitParsePool({ workers: 2, maxQueued: 10, logger });
    const inPlace = new JUnitParsePool({ workers: 0, maxQueued: 0, logger });
    try {
      const tasks = Array.from({ length: 5 }, (_, i) =>
        task(`<testsuite name="s${i}"><testcase name="t${i}"><failure/></testcase></testsuite>`),
      );

      const [viaWorkers, direct] = await Promise.all([
        Promise.all(tasks.map((t) => pool.parse(t))),
        Promise.all(tasks.map((t) => inPlace.parse(t))),
      ]);

      expect(viaWorkers).toEqual(direct);
      expect(viaWorkers.every((o) => o.ok)).toBe(true);
    } finally {
      await Promise.all([pool.close(), inPlace.close()]);
    }
  });

  it('when a report is refused inside a worker, then the refusal comes back as an outcome, not a crash', async () => {
    const pool = new JUnitParsePool({ workers: 1, maxQueued: 1, logger });
    try {
      await expect(pool.parse(task('<oops'))).resolves.toMatchObject({ ok: false, code: 'MALFORMED' });
      await expect(pool.parse(task('<testsuite name="s"><testcase name="a"/></testsuite>'))).resolves.toMatchObject({ ok: true });
    } finally {
      await pool.close();
    }
  });

  it('when every worker is busy and the queue is full, then the next upload is refused as busy', async () => {
    const pool = new JUnitParsePool({ workers: 1, maxQueued: 1, logger });
    const big = task(`<testsuite name="s">${'<testcase name="x"/>'.repeat(20_000)}</testsuite>`);
    try {
      const first = pool.parse(big);
      const second = pool.parse(big);

      await expect(pool.parse(big)).rejects.toBeInstanceOf(ParserBusyError);
      await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    } finally {
      await pool.close();
    }
  });
});
