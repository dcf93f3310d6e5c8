export * from './config';
export * from './tokens';
export * from './adapters';
export * from './env';
export * from './env-file';
export * from './tokens-file';
export * from './secrets';
export * from './queue-command-handler';
