export * from './common';
export * from './queue';
export * from './pull-requests';
export * from './responses';
export * from './responses-ci';
export * from './responses-history';
export * from './responses-test-health';
export * from './openapi';
