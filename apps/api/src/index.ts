export * from './app';
export * from './deps';
export * from './queue-commands';
export * from './auth/tokens';
export * from './http/errors';
export * from './routes/impacted-targets';
