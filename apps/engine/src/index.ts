export * from './ci/port';
export * from './ci/repo-config';
export * from './engine';
export * from './engine-commands';
export * from './facts';
export * from './queue-driver';
export * from './embedded';
