import { TRUNK_OPERATIONS, trunkOperationAt } from '@railyard/api';

/**
 * Trunk's own published contract (apps/api/src/trunk/contract.json) held against real answers: every
 * JSON call the e2e suites make through `poster` goes through `checkAgainstTrunk`. A call to one of
 * Trunk's paths fails its test when Railyard does not serve the path, answers 400 to a request Trunk's
 * schema accepts, or answers 200 with a body Trunk's schema of the answer refuses.
 */

export interface Answer {
  status: number;
  body: unknown;
}

/** How many answers were held against Trunk's contract in this test file, by Trunk's operation name. */
export const trunkChecks = new Map<string, number>();

export const checkAgainstTrunk = (method: string, path: string, request: unknown, answer: Answer): void => {
  const op = trunkOperationAt(method, new URL(path, 'http://server').pathname);
  if (!op) return;
  trunkChecks.set(op.name, (trunkChecks.get(op.name) ?? 0) + 1);
  const code = (answer.body as { error?: { code?: string } } | null)?.error?.code;
  if (answer.status === 404 && code === 'ROUTE_NOT_FOUND') throw new Error(`Railyard does not serve Trunk's ${op.name}`);
  if (answer.status === 400 && op.takesBody && op.acceptsRequest(request))
    throw new Error(`Trunk's ${op.name} schema accepts this request, and Railyard answered 400: ${JSON.stringify(answer.body)}`);
  if (answer.status !== 200) return;
  const problem = op.answerProblem(200, answer.body);
  if (problem) throw new Error(`Trunk's ${op.name} schema refuses the answer: ${problem}\n${JSON.stringify(answer.body).slice(0, 2000)}`);
};

/** Trunk's operations, by name: `getQueue`, `flaky-tests/list-unhealthy-tests`. */
export const TRUNK_OPERATION_NAMES: readonly string[] = TRUNK_OPERATIONS.map((op) => op.name);
