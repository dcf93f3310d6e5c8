import { createCheckRun, createStatus, pullsForSha, rerequestSuite, suiteRuns, updateCheckRun, type CheckRunInput } from '../check-actions';
import { checkRunsOn, latestCheckRuns, latestStatuses } from '../checks-state';
import { GithubHttpError, notFound, unprocessable } from '../errors';
import { objectType, readCommit, resolveCommitish } from '../git';
import type { CheckRun, FakeRepo, StatusState } from '../model';
import { checkRun, checkSuite } from '../representations/checks';
import { combinedStatus, commitStatus } from '../representations/statuses';
import { ok, paginate, repoOf, type Handlers, type RouteContext } from './types';

/** Commit statuses and check runs. */

const shaOfRef = async (repo: FakeRepo, ref: string): Promise<string> => {
  const sha = await resolveCommitish(repo.gitDir, ref);
  if (sha === null) throw new GithubHttpError(422, `No commit found for SHA: ${ref}`);
  return sha;
};

const runOf = (ctx: RouteContext): CheckRun => {
  const run = ctx.core.state.checkRuns.get(Number(ctx.params.check_run_id));
  if (!run || run.repoId !== repoOf(ctx).id) throw notFound();
  return run;
};

const runView = (ctx: RouteContext, run: CheckRun) => checkRun(run, pullsForSha(ctx.core, repoOf(ctx), run.headSha), ctx.core.view);

type CheckRunBody = {
  name?: string;
  head_sha?: string;
  details_url?: string;
  external_id?: string;
  status?: CheckRunInput['status'];
  conclusion?: CheckRunInput['conclusion'];
  started_at?: string;
  completed_at?: string;
  output?: { title?: string; summary?: string; text?: string };
  actions?: CheckRun['actions'];
};

const checkRunInput = (body: CheckRunBody): Partial<CheckRunInput> => {
  // GitHub refuses a completed run without a conclusion.
  if (body.status === 'completed' && body.conclusion === undefined)
    throw unprocessable('Invalid request.\n\nNo subschema in "anyOf" matched.\n"conclusion" wasn\'t supplied.');
  const input: Partial<CheckRunInput> = {};
  if (body.name !== undefined) input.name = body.name;
  if (body.head_sha !== undefined) input.headSha = body.head_sha;
  if (body.status !== undefined) input.status = body.status;
  if (body.conclusion !== undefined) input.conclusion = body.conclusion;
  if (body.details_url !== undefined) input.detailsUrl = body.details_url;
  if (body.external_id !== undefined) input.externalId = body.external_id;
  if (body.started_at !== undefined) input.startedAt = body.started_at;
  if (body.completed_at !== undefined) input.completedAt = body.completed_at;
  if (body.output !== undefined) input.output = body.output;
  if (body.actions !== undefined) input.actions = body.actions;
  return input;
};

export const checkHandlers: Handlers = {
  'repos/create-commit-status': async (ctx) => {
    const repo = repoOf(ctx);
    const sha = ctx.params.sha as string;
    if ((await objectType(repo.gitDir, sha)) !== 'commit') throw unprocessable(`No commit found for SHA: ${sha}`);
    const body = ctx.body as { state: StatusState; target_url?: string | null; description?: string | null; context?: string };
    const status = await createStatus(ctx.core, repo, {
      sha,
      state: body.state,
      context: body.context ?? 'default',
      description: body.description ?? null,
      targetUrl: body.target_url ?? null,
      creator: ctx.actor,
    });
    return ok(commitStatus(status, ctx.core.view), 201);
  },

  'repos/get-combined-status-for-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const sha = await shaOfRef(repo, ctx.params.ref as string).catch(() => {
      throw notFound();
    });
    return ok(combinedStatus(repo, sha, latestStatuses(ctx.core.state, repo.id, sha), ctx.core.view));
  },

  'repos/list-commit-statuses-for-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const sha = await shaOfRef(repo, ctx.params.ref as string);
    const all = ctx.core.state.statuses.filter((s) => s.repoId === repo.id && s.sha === sha).sort((a, b) => b.id - a.id);
    const { page, headers } = paginate(ctx, all);
    return { status: 200, body: page.map((s) => commitStatus(s, ctx.core.view)), headers };
  },

  'checks/create': async (ctx) => {
    const repo = repoOf(ctx);
    const input = checkRunInput(ctx.body as CheckRunBody);
    if ((await objectType(repo.gitDir, input.headSha ?? '')) !== 'commit') throw unprocessable(`No commit found for SHA: ${input.headSha}`);
    const run = await createCheckRun(ctx.core, repo, ctx.caller.app, input as CheckRunInput);
    return ok(runView(ctx, run), 201);
  },

  'checks/get': async (ctx) => ok(runView(ctx, runOf(ctx))),

  'checks/update': async (ctx) => {
    const run = runOf(ctx);
    // Only the App that created a check run may change it.
    if (run.appId !== ctx.caller.app.id)
      throw new GithubHttpError(
        403,
        'Invalid app_id `' + ctx.caller.app.id + '` - check run can only be modified by the GitHub App that created it.',
      );
    const input = checkRunInput(ctx.body as CheckRunBody);
    delete input.headSha;
    await updateCheckRun(ctx.core, run, input, ctx.actor);
    return ok(runView(ctx, run));
  },

  'checks/list-for-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const sha = await shaOfRef(repo, ctx.params.ref as string);
    let runs = checkRunsOn(ctx.core.state, repo.id, sha);
    if ((ctx.query.get('filter') ?? 'latest') === 'latest') runs = latestCheckRuns(runs);
    const name = ctx.query.get('check_name');
    const status = ctx.query.get('status');
    const appId = ctx.query.get('app_id');
    runs = runs.filter(
      (run) =>
        (name === null || run.name === name) &&
        (status === null || run.status === status) &&
        (appId === null || String(run.appId) === appId),
    );
    const { page, headers } = paginate(ctx, runs);
    return { status: 200, body: { total_count: runs.length, check_runs: page.map((run) => runView(ctx, run)) }, headers };
  },

  'checks/rerequest-suite': async (ctx) => {
    const repo = repoOf(ctx);
    const suite = ctx.core.state.checkSuites.get(Number(ctx.params.check_suite_id));
    if (!suite || suite.repoId !== repo.id) throw notFound();
    await rerequestSuite(ctx.core, repo, suite, ctx.actor);
    return ok({}, 201);
  },

  'checks/list-suites-for-ref': async (ctx) => {
    const repo = repoOf(ctx);
    const sha = await shaOfRef(repo, ctx.params.ref as string);
    const head = await readCommit(repo.gitDir, sha);
    if (head === null) throw notFound();
    const suites = [...ctx.core.state.checkSuites.values()].filter((s) => s.repoId === repo.id && s.headSha === sha);
    const pulls = pullsForSha(ctx.core, repo, sha);
    const { page, headers } = paginate(ctx, suites);
    const views = page.map((suite) => checkSuite(suite, suiteRuns(ctx.core, suite), head, pulls, ctx.core.view));
    return { status: 200, body: { total_count: suites.length, check_suites: views }, headers };
  },
};
