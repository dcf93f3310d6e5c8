export * from './temp-dir';
export * from './git-repos';
export * from './pulls';
export * from './prometheus';
export * from './fake-github';
export * from './postgres';
export * from './repo-bed';
export * from './old-status-files';
