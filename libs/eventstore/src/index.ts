export * from './port';
export * from './blob-port';
