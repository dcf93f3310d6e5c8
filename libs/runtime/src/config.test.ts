import { loadConfig } from './config';

describe('loadConfig: readiness and metrics settings', () => {
  it('when nothing is set, then the lag limit is 10 s and there is no metrics port', () => {
    const config = loadConfig({});
    expect(config.projectionMaxLagMs).toBe(10_000);
    expect(config.metricsPort).toBeUndefined();
    expect(config.apiTokensFile).toBeUndefined();
  });

  it('when they are set, then they are used, port 0 included (any free port)', () => {
    expect(loadConfig({ RAILYARD_PROJECTION_MAX_LAG_MS: '2500', RAILYARD_METRICS_PORT: '9464' })).toMatchObject({
      projectionMaxLagMs: 2500,
      metricsPort: 9464,
    });
    expect(loadConfig({ RAILYARD_METRICS_PORT: '0' }).metricsPort).toBe(0);
  });

  it('when they are unusable, then it says which', () => {
    expect(() => loadConfig({ RAILYARD_PROJECTION_MAX_LAG_MS: '10' })).toThrow(/RAILYARD_PROJECTION_MAX_LAG_MS/);
    expect(() => loadConfig({ RAILYARD_METRICS_PORT: 'http' })).toThrow(/RAILYARD_METRICS_PORT/);
  });
});
