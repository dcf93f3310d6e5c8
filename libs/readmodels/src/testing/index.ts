export * from './fixtures';
export * from './recorded';
