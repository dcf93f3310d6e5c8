export * from './port';
export { repoFactsByHost } from './by-host';
