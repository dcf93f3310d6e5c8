export * from './config';
export * from './tokens';
export * from './adapters';
export * from './tokens-file';
