import { TRUNK_OPERATIONS, trunkOperationAt, type TrunkOperation } from '@railyard/api';

/**
 * Trunk's own published contract (apps/api/src/trunk/contract.json) held against real answers: every
 * answer the e2e suites get through supertest goes through `checkAgainstTrunk` (support/trunk-hook.ts). A call to one of
 * Trunk's paths fails its test when Railyard does not serve the path, answers 400 to a request Trunk's
 * schema accepts, or answers 200 with a body Trunk's schema of the answer refuses.
 */

export interface Answer {
  status: number;
  body: unknown;
}

/** How many answers were held against Trunk's contract in this test file, by Trunk's operation name. */
export const trunkChecks = new Map<string, number>();

/**
 * The checks one file's calls passed or failed, by name. Their list comes from Trunk's document alone
 * (`contractCheckNames`), so a count of passed checks compares one version of Railyard with another.
 */
const outcomes = new Map<string, boolean>();
const record = (check: string, passed: boolean): void => {
  outcomes.set(check, (outcomes.get(check) ?? true) && passed);
};

const served = (op: TrunkOperation) => `${op.name}: served`;
const not400 = (op: TrunkOperation) => `${op.name}: a request Trunk's schema accepts is not answered 400`;
const answers200 = (op: TrunkOperation) => `${op.name}: answers 200`;
const fits = (op: TrunkOperation) => `${op.name}: the answer fits Trunk's schema`;
const field = (op: TrunkOperation, name: string) => `${op.name}: answer field ${name}`;

/** Per operation: served, no 400 for a request Trunk accepts, a 200, and its answer whole and field by required field. */
export const contractCheckNames = (): string[] =>
  TRUNK_OPERATIONS.flatMap((op) => [
    served(op),
    not400(op),
    answers200(op),
    ...(op.documentsAnswer ? [fits(op), ...op.requiredAnswerFields.map((name) => field(op, name))] : []),
  ]);

/** How many of `contractCheckNames` this file's calls passed; a check no call reached counts as failed. */
export const contractScore = (): { passed: number; total: number; failed: string[] } => {
  const names = contractCheckNames();
  const failed = names.filter((name) => outcomes.get(name) !== true);
  return { passed: names.length - failed.length, total: names.length, failed };
};

export const checkAgainstTrunk = (method: string, path: string, request: unknown, answer: Answer): void => {
  const op = trunkOperationAt(method, new URL(path, 'http://server').pathname);
  if (!op) return;
  trunkChecks.set(op.name, (trunkChecks.get(op.name) ?? 0) + 1);
  const code = (answer.body as { error?: { code?: string } } | null)?.error?.code;
  const notServed = answer.status === 404 && code === 'ROUTE_NOT_FOUND';
  record(served(op), !notServed);
  const accepted = !op.takesBody || op.acceptsRequest(request);
  if (accepted) record(not400(op), answer.status !== 400);
  const problem = answer.status === 200 ? op.answerProblem(200, answer.body) : undefined;
  if (answer.status === 200) {
    record(answers200(op), true);
    if (op.documentsAnswer) {
      record(fits(op), !problem);
      const refused = new Set(op.refusedAnswerFields(answer.body));
      for (const name of op.requiredAnswerFields) record(field(op, name), !refused.has(name));
    }
  }
  if (notServed) throw new Error(`Railyard does not serve Trunk's ${op.name}`);
  if (answer.status === 400 && op.takesBody && accepted)
    throw new Error(`Trunk's ${op.name} schema accepts this request, and Railyard answered 400: ${JSON.stringify(answer.body)}`);
  if (problem) throw new Error(`Trunk's ${op.name} schema refuses the answer: ${problem}\n${JSON.stringify(answer.body).slice(0, 2000)}`);
};

/** Trunk's operations, by name: `getQueue`, `flaky-tests/list-unhealthy-tests`. */
export const TRUNK_OPERATION_NAMES: readonly string[] = TRUNK_OPERATIONS.map((op) => op.name);
