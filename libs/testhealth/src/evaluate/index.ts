export { evaluateTest, lookbackMs, passCannotChange, type CurrentHealth, type EvaluationInput } from './evaluate';
