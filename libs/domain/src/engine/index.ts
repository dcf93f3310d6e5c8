export * from './actions';
export * from './commands';
export * from './decide-engine';
export * from './facts';
export * from './order';
export * from './plan';
export * from './runs';
