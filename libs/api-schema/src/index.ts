export * from './common';
export * from './queue';
export * from './pull-requests';
export * from './responses';
export * from './openapi';
