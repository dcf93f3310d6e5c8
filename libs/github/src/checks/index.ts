export * from './check-run-view';
export * from './check-run-publisher';
