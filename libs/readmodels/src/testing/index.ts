/** Builders for read-side tests (here and in the apps): domain events, their recorded form, and each read model's histories. */
export * from './fixtures';
export * from './recorded';
export * as testRunTesting from './testruns';
export * as metricsTesting from './metrics';
export * as testHealthTesting from './testhealth';
export * from './paged';
