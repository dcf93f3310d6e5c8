export * from './logger';
export * from './metrics-text';
export * from './metrics-registry';
export * from './metrics-http';
