export * from './types';
export { explainPr, explainQueue } from './explain';
export { explainFromState, explainRunOfTestRun } from './of-state';
export { reasonSentence } from './reasons';
export * from './words';
