export * from './logger';
export * from './metrics-text';
export * from './metrics-registry';
export * from './metrics-http';
export * from './process-metrics';
export * from './metrics-server';
export * from './listen';
