import { z } from 'zod';
import { EXPLAINED_RUN_STATUSES, NOTE_KINDS, WAITING_KINDS } from '@railyard/domain';

/**
 * The explanation getSubmittedPullRequest and getQueue entries carry beside the spec's fields
 * (libs/domain/src/explain computes it; docs/api.md, "Explanations").
 */
export const stateReasonSchema = z
  .object({
    code: z.string().describe('the reason code of the event that moved the PR to its state (upper snake case), or UNKNOWN'),
    message: z.string().describe('one sentence, e.g. "failed because check `test` failed on run …"'),
    detail: z.string().optional().describe('what the engine said to fix, when it said something'),
    testRunId: z.string().optional().describe('the run the reason is about'),
  })
  .describe('why the PR is in its state');

export const waitingOnSchema = z
  .object({
    kind: z.enum(WAITING_KINDS),
    message: z.string(),
    checks: z.array(z.string()).optional().describe('required statuses not yet reported, by name'),
    prNumbers: z.array(z.number().int().min(1)).optional().describe('the first PRs ahead that must settle'),
  })
  .describe('one thing the PR waits for now');

const checkSchema = z.object({
  name: z.string(),
  state: z.enum(['pending', 'success', 'failure', 'error']),
  url: z.string().optional().describe('the check log, under RAILYARD_PUBLIC_URL for checks Railyard runs'),
});

export const lastTestRunSchema = z
  .object({
    id: z.string(),
    status: z.enum(EXPLAINED_RUN_STATUSES),
    testBranch: z.string(),
    checks: z.array(checkSchema).describe('every check reported on the run'),
    failedChecks: z.array(checkSchema).describe('the checks the run failed on, with their logs'),
  })
  .describe('the last run that tested or decided the PR');

export const noteSchema = z
  .object({
    kind: z
      .enum(NOTE_KINDS)
      .describe(
        'config_not_used: the PR changes the gating configuration files, which its run did not use; status_not_counted: a status on its run came from someone not allowed to report that context',
      ),
    message: z.string().describe('one sentence, e.g. "this PR changes .railyard.yml; run … tested it with main\'s configuration …"'),
    files: z.array(z.string()).optional().describe('the configuration files the PR changes'),
    checks: z.array(z.string()).optional().describe('the status context that was not counted'),
  })
  .describe('something to know about how the last run judged the PR');

export const explanationFields = {
  stateReason: stateReasonSchema,
  waitingOn: z.array(waitingOnSchema).describe('empty once the PR is merged, failed or cancelled'),
  lastTestRun: lastTestRunSchema.optional(),
  notes: z.array(noteSchema).optional().describe('present only when there is something to say'),
};
