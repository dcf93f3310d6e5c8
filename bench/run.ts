import { dispatch, type BenchmarkRegistry } from './support/dispatch';

/**
 * `npm run bench -- <name> [args...]`. Registering a benchmark is one line: its name and a loader of
 * a module that exports `run(args): AsyncIterable<object> | Promise<object[]>`.
 */
const BENCHMARKS: BenchmarkRegistry = {
  api: () => import('./api'),
  rebuild: () => import('./rebuild'),
  eventstore: () => import('./eventstore'),
  blobs: () => import('./blobs'),
  metrics: () => import('./metrics'),
  engine: () => import('./engine'),
  testhealth: () => import('./testhealth'),
  simulate: () => import('./simulate'),
  planner: () => import('./planner'),
  targets: () => import('./targets'),
  ci: () => import('./ci'),
  'ci-isolation': () => import('./ci-isolation'),
  contention: () => import('./contention'),
  bodies: () => import('./bodies'),
  github: () => import('./github'),
  repofacts: () => import('./repo-facts'),
  dashboard: () => import('./dashboard'),
  start: () => import('./start'),
  calibrate: () => import('./calibrate'),
  'flaky-spread': () => import('./flaky-spread'),
  'engine-shape': () => import('./engine-shape'),
  'stack-history': () => import('./stack-history'),
  scale: () => import('./scale'),
  webhooks: () => import('./webhooks'),
  retention: () => import('./retention'),
  answers: () => import('./answers'),
};

dispatch(BENCHMARKS, process.argv.slice(2), { out: (l) => process.stdout.write(l), err: (l) => process.stderr.write(l) }).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
