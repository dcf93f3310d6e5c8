import { policyFromEnv } from './flaky-spread';

describe('bench flaky-spread policies', () => {
  it('when nothing is set, then both runs of a seed use the default queue without test results', () => {
    expect(policyFromEnv({})).toEqual({ queue: {}, testResults: false });
  });

  it('when queue settings and results are asked for, then both runs of a seed use them', () => {
    const env = { BENCH_FLAKY_SPREAD_QUEUE: '{"flakeRetries":2}', BENCH_FLAKY_SPREAD_RESULTS: '1' };
    expect(policyFromEnv(env)).toEqual({ queue: { flakeRetries: 2 }, testResults: true });
  });

  it('when the queue settings are not a JSON object, then the bench refuses to start', () => {
    for (const raw of ['[1]', 'null', '2']) expect(() => policyFromEnv({ BENCH_FLAKY_SPREAD_QUEUE: raw })).toThrow(/JSON object/);
    expect(() => policyFromEnv({ BENCH_FLAKY_SPREAD_QUEUE: '{' })).toThrow();
  });
});
