export * from './tokens';
