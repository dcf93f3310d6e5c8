import express, { Router, type Request, type Response } from 'express';
import { formatRepo, parseQueueId, queueIdOf, queueStreamOf, repoSlug, type QueueCommand } from '@railyard/domain';
import type { EventStore } from '@railyard/eventstore';
import type { MetricsStore, TestHealthReadModels, TestRunView } from '@railyard/readmodels';
import { decodePageToken, pageInfoFor, PageQueryError, repoIdOf, scopeOf } from '@railyard/testhealth';
import { failureRatesOfRuns } from '../test-health/failure-rates';
import { historyEntryOf, replayQueue, runTimesOf, sortKeyOf } from '@railyard/readmodels';
import { DomainError } from '@railyard/domain';
import type { ApiDeps } from '../deps';
import { createQueueCommandOf, updateQueueCommandOf } from '../routes/queues';
import { createRequestOfForm, FormError, updateRequestOfForm } from './queue-forms';
import { explainView, explainViews } from '@railyard/readmodels';
import { scopeAllows, type Scope } from '@railyard/auth';
import { html, type SafeHtml } from './html';
import { LIVE_JS, page } from './layout';
import { prPath, queuePath } from './links';
import { historyBody } from './pages/history';
import { overviewBody, type QueueSummary } from './pages/overview';
import { prBody } from './pages/pr';
import { queueBody } from './pages/queue';
import { runBody } from './pages/run';
import { signInBody } from './pages/sign-in';
import { TEST_LISTS, testsBody, type TestList } from './pages/tests';
import { testBody } from './pages/test';
import type { Session, Sessions } from './session';
import { PageError, type Shown } from './page-error';
import { webhookPages } from './webhook-pages';
import type { WebhookApiParts } from '../routes/webhooks';

export interface DashboardDeps {
  eventStore: EventStore;
  metrics: MetricsStore;
  testHealthStore: TestHealthReadModels;
  pageTokenSecret: string;
  sessions: Sessions;
  /** How far back the queue page lists merged, failed and cancelled PRs. */
  outcomesWindowHours: number;
  clock: { now: () => Date };
  /** Outgoing webhooks' endpoints and log: the /webhooks pages say they are not configured without them. */
  webhooks?: WebhookApiParts;
}

// Pages load no script but our own and no frame may embed them (clickjacking of the action forms).
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const send = (res: Response, status: number, body: SafeHtml): void => {
  const started = res.locals.renderStarted as bigint | undefined;
  // The time from the request reaching the page to its HTML being ready (docs/dashboard.md): what the benchmark reads.
  const cpu = res.locals.renderCpu as NodeJS.CpuUsage | undefined;
  if (started !== undefined && cpu !== undefined) {
    const used = process.cpuUsage(cpu);
    res.set(
      'Server-Timing',
      `render;dur=${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(2)}, cpu;dur=${((used.user + used.system) / 1000).toFixed(2)}`,
    );
  }
  res.status(status).set({
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
  res.send(body.value);
};

/** A same-site path to return to after signing in; anything else goes to the overview. */
const safeNext = (raw: unknown): string => (typeof raw === 'string' && /^\/(?![/\\])[\w\-./~%?=&:+]*$/.test(raw) ? raw : '/');

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The most recent outcomes a queue page lists; the window (RAILYARD_DASHBOARD_OUTCOMES_HOURS) bounds them too. */
const OUTCOMES_SHOWN = 100;

/**
 * The dashboard (docs/dashboard.md): server-rendered pages over the read models, served by the API's
 * own express app. Every page needs a session (sign-in with an API token); every form carries the
 * session's CSRF token and is checked against the token's scope again on the server.
 */
export const dashboardRouter = (deps: ApiDeps, d: DashboardDeps): Router => {
  const router = Router();
  const { readModels } = deps;
  const { sessions } = d;
  // Enough fields for the queue forms (queue-admin.ts), few enough that a request cannot make many.
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });

  const sessionOf = async (req: Request, res: Response): Promise<Session | undefined> => {
    const session = await sessions.of(req);
    if (!session) {
      res.redirect(303, `/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
      return undefined;
    }
    res.locals.actor = session.name;
    return session;
  };

  const render = (res: Response, session: Session, title: string, body: SafeHtml, live?: string, status = 200) =>
    send(res, status, page({ title, session, csrf: sessions.csrfFor(session.id), ...(live ? { live } : {}) }, body));

  const pageRoute = (path: string, handler: (req: Request, res: Response, session: Session) => Promise<void>) => {
    router.get(path, async (req, res) => {
      res.locals.renderStarted = process.hrtime.bigint();
      // CPU time too: on a machine shared with other work, wall time also counts the waits for a core.
      res.locals.renderCpu = process.cpuUsage();
      const session = await sessionOf(req, res);
      if (!session) return;
      try {
        await handler(req, res, session);
      } catch (err) {
        if (!(err instanceof PageError)) throw err;
        render(res, session, err.status === 404 ? 'Not found' : 'Error', html`<p class="error">${err.message}</p>`, undefined, err.status);
      }
    });
  };

  /** A POST form: session, CSRF token, then scope; answers by going to the path it returns, or with the page it returns. */
  const action = (path: string, scope: Scope, handler: (req: Request, session: Session) => Promise<string | Shown>) => {
    router.post(path, form, async (req, res) => {
      const session = await sessions.of(req);
      if (!session)
        return send(res, 401, page({ title: 'Signed out' }, html`<p>Your session ended. <a href="/sign-in">Sign in</a> again.</p>`));
      if (!sessions.checkCsrf(session.id, (req.body as Record<string, unknown> | undefined)?._csrf))
        return render(
          res,
          session,
          'Refused',
          html`<p class="error">The form was not sent from this dashboard (CSRF token missing or wrong).</p>`,
          undefined,
          403,
        );
      if (!scopeAllows(session.scope, scope))
        return render(
          res,
          session,
          'Refused',
          html`<p class="error">Token "${session.name}" has scope ${session.scope}; this needs ${scope}.</p>`,
          undefined,
          403,
        );
      try {
        const outcome = await handler(req, session);
        if (typeof outcome === 'string') res.redirect(303, outcome);
        else render(res, session, outcome.title, outcome.body);
      } catch (err) {
        if (err instanceof DomainError || err instanceof PageError)
          return render(
            res,
            session,
            'Refused',
            html`<p class="error">${err.message}</p>`,
            undefined,
            err instanceof PageError ? err.status : 409,
          );
        throw err;
      }
    });
  };

  const queueOf = async (raw: string) => {
    let key: ReturnType<typeof parseQueueId>;
    try {
      key = parseQueueId(raw);
    } catch {
      throw new PageError(404, 'No such queue.');
    }
    const view = await readModels.getQueue(raw);
    if (!view) throw new PageError(404, 'No such queue.');
    return { ...key, view };
  };

  const prNumberOf = (raw: string): number => {
    if (!/^[1-9]\d{0,9}$/.test(raw)) throw new PageError(404, 'No such pull request.');
    return Number(raw);
  };

  router.get('/dashboard/live.js', (_req, res) => {
    res.status(200).set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'max-age=300' }).send(LIVE_JS);
  });

  router.get('/sign-in', (req, res) => {
    const pre = sessions.preSession(req, res);
    send(res, 200, page({ title: 'Sign in' }, signInBody(sessions.csrfFor(pre), safeNext(req.query.next))));
  });

  router.post('/sign-in', form, (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const pre = sessions.preSessionOf(req);
    const next = safeNext(body.next);
    if (!pre || !sessions.checkCsrf(pre, body._csrf)) {
      const fresh = sessions.preSession(req, res);
      return send(res, 403, page({ title: 'Sign in' }, signInBody(sessions.csrfFor(fresh), next, 'The sign-in form expired; try again.')));
    }
    // A wrong token here is a failed authentication like a wrong x-api-token: it counts against the address.
    const wait = deps.limiter?.authenticationWait(req) ?? 0;
    if (wait > 0) {
      res.set('Retry-After', String(wait));
      return send(
        res,
        429,
        page({ title: 'Sign in' }, signInBody(sessions.csrfFor(pre), next, 'Too many failed sign-ins; wait a moment.')),
      );
    }
    const token = typeof body.token === 'string' ? sessions.prove(body.token.trim()) : undefined;
    if (!token) {
      deps.limiter?.authenticationFailed(req);
      return send(res, 401, page({ title: 'Sign in' }, signInBody(sessions.csrfFor(pre), next, 'That is not a known API token.')));
    }
    sessions.start(res, req, token);
    deps.logger.info('dashboard sign-in', { actor: token.name });
    res.redirect(303, next);
  });

  router.post('/sign-out', form, async (req, res) => {
    const session = await sessions.of(req);
    if (session && !sessions.checkCsrf(session.id, (req.body as Record<string, unknown> | undefined)?._csrf))
      return send(res, 403, page({ title: 'Refused' }, html`<p class="error">CSRF token missing or wrong.</p>`));
    await sessions.end(res, req, session);
    res.redirect(303, '/sign-in');
  });

  pageRoute('/', async (_req, res, session) => {
    const now = d.clock.now().getTime();
    const docs = await d.metrics.queues();
    const summaries: QueueSummary[] = [];
    for (const m of docs) {
      const view = await readModels.getQueue(m.queueId);
      if (!view) continue;
      const prs = await readModels.listActivePrs(m.queueId);
      const stream = await d.eventStore.readStream(queueStreamOf(m.queueId));
      const mergesLastDay = stream.filter((e) => e.type === 'PrMerged' && Date.parse(historyEntryOf(e).time) > now - DAY).length;
      summaries.push({ view, depth: prs.length, testing: prs.filter((p) => p.state === 'testing').length, metrics: m, mergesLastDay });
    }
    render(
      res,
      session,
      'Queues',
      overviewBody(summaries, now, session.scope === 'admin' ? sessions.csrfFor(session.id) : undefined),
      'overview',
    );
  });

  pageRoute('/queues/:queueId', async (req, res, session) => {
    const { view } = await queueOf(String(req.params.queueId));
    const body = await queuePageBody(view.queueId, session);
    render(res, session, `Queue ${repoSlug(view.repo)} ${view.branch}`, body, `queue:${view.queueId}`);
  });

  const queuePageBody = async (queueId: string, session: Session): Promise<SafeHtml> => {
    const view = await readModels.getQueue(queueId);
    if (!view) throw new PageError(404, 'No such queue.');
    const now = d.clock.now().getTime();
    const prs = await readModels.listActivePrs(queueId);
    const explanations = await explainViews(readModels, view, prs);
    const since = new Date(now - d.outcomesWindowHours * HOUR).toISOString();
    const concluded = (await readModels.listPrs(queueId, { take: OUTCOMES_SHOWN, concludedSince: since })).prs.sort((a, b) =>
      b.stateChangedAt.localeCompare(a.stateChangedAt),
    );
    const outcomes = await Promise.all(concluded.map(async (pr) => ({ pr, explanation: await explainView(readModels, pr) })));
    const runIds = [...new Set(prs.filter((p) => p.state === 'testing' && p.lastTestRunId).map((p) => p.lastTestRunId as string))];
    const runs = (await Promise.all(runIds.map((id) => readModels.getTestRun(queueId, id)))).filter((r): r is TestRunView => r !== null);
    const runTimes = runTimesOf((await d.eventStore.readStream(queueStreamOf(queueId))).map(historyEntryOf));
    return queueBody(
      { view, prs, explanations, runs, outcomes, runTimes, outcomesWindowHours: d.outcomesWindowHours, now },
      session,
      sessions.csrfFor(session.id),
    );
  };

  pageRoute('/queues/:queueId/prs/:prNumber', async (req, res, session) => {
    const { view: queue } = await queueOf(String(req.params.queueId));
    const prNumber = prNumberOf(String(req.params.prNumber));
    const view = await readModels.getPr(queue.queueId, prNumber);
    if (!view) throw new PageError(404, `PR #${prNumber} was never submitted to this queue.`);
    const stream = await d.eventStore.readStream(queueStreamOf(queue.queueId));
    const timeline = stream.map(historyEntryOf).filter((e) => e.prNumber === prNumber || isRunOf(e.data, prNumber));
    const runIds = [
      ...new Set(timeline.map((e) => (e.data as { testRunId?: unknown }).testRunId).filter((id): id is string => typeof id === 'string')),
    ];
    const runs = (await Promise.all(runIds.reverse().map((id) => readModels.getTestRun(queue.queueId, id)))).filter(
      (r): r is TestRunView => r !== null,
    );
    const explanation = await explainView(readModels, view);
    render(
      res,
      session,
      `PR #${prNumber}`,
      prBody({ view, explanation, timeline, runs }, session, sessions.csrfFor(session.id), d.clock.now().getTime()),
      `pr:${queue.queueId}:${prNumber}`,
    );
  });

  pageRoute('/queues/:queueId/runs/:testRunId', async (req, res, session) => {
    const { view: queue } = await queueOf(String(req.params.queueId));
    const run = await readModels.getTestRun(queue.queueId, String(req.params.testRunId));
    if (!run) throw new PageError(404, 'No such test run in this queue.');
    render(
      res,
      session,
      `Test run ${run.testRunId.slice(0, 8)}`,
      runBody(run, d.clock.now().getTime()),
      `run:${queue.queueId}:${run.testRunId}`,
    );
  });

  pageRoute('/queues/:queueId/history', async (req, res, session) => {
    const { view: queue } = await queueOf(String(req.params.queueId));
    const rawAt = typeof req.query.at === 'string' ? req.query.at : d.clock.now().toISOString();
    if (Number.isNaN(Date.parse(rawAt))) throw new PageError(400, 'The instant must be an ISO 8601 time, e.g. 2026-03-01T09:30:00Z.');
    const at = new Date(Date.parse(rawAt)).toISOString();
    const entries = (await d.eventStore.readStream(queueStreamOf(queue.queueId))).map(historyEntryOf);
    const replayed = replayQueue(entries, at) as { state: string; enqueuedPullRequests: never[] } | null;
    render(
      res,
      session,
      `History of ${repoSlug(queue.repo)} ${queue.branch}`,
      historyBody({ queueId: queue.queueId, at, times: entries.map((e) => e.time), replayed }),
    );
  });

  // A local repository's html_url (test-health/views.ts): its tests are what the dashboard knows of it.
  router.get('/repos/:host/:owner/:name', (req, res) => {
    const { host = '', owner = '', name = '' } = req.params as Record<string, string>;
    res.redirect(302, `/tests?${new URLSearchParams({ repo: repoIdOf({ host, owner, name }) }).toString()}`);
  });

  // The page every test's html_url names (Trunk's test APIs and webhooks; test-health/views.ts builds it).
  pageRoute('/repos/:host/:owner/:name/tests/:testId', async (req, res, session) => {
    const { host = '', owner = '', name = '', testId = '' } = req.params as Record<string, string>;
    const repo = { host, owner, name };
    const repoId = repoIdOf(repo);
    const doc = await d.testHealthStore.getTest(repoId, testId);
    if (!doc) throw new PageError(404, `No test ${testId} in ${formatRepo(repo)}.`);
    const runs = (await d.testHealthStore.getHistories(repoId, [testId]))[0]?.runs ?? [];
    const now = d.clock.now();
    const rates = failureRatesOfRuns(runs, now);
    render(res, session, doc.classname ? `${doc.classname} › ${doc.name}` : doc.name, testBody({ doc, rates, runs, now: now.getTime() }));
  });

  pageRoute('/tests', async (req, res, session) => {
    const repoIds = await d.testHealthStore.repoIds();
    const list: TestList = (TEST_LISTS as readonly string[]).includes(String(req.query.list)) ? (req.query.list as TestList) : 'flaky';
    const repoId = typeof req.query.repo === 'string' && repoIds.includes(req.query.repo) ? req.query.repo : repoIds[0];
    const repos = repoIds.map((id) => ({ id, label: id.split('~').map(decodeURIComponent).join('/') }));
    if (!repoId) return render(res, session, 'Flaky and quarantined tests', testsBody({ repos, list, rows: [] }));
    const scope = scopeOf({ dashboard: repoId, list });
    let cursor;
    try {
      cursor = typeof req.query.page_token === 'string' ? decodePageToken(req.query.page_token, d.pageTokenSecret, scope) : undefined;
    } catch (err) {
      if (err instanceof PageQueryError) throw new PageError(400, err.message);
      throw err;
    }
    const size = 25;
    const listed = await d.testHealthStore.listPage(repoId, list, size, cursor);
    const first = listed.rows[0];
    const last = listed.rows[listed.rows.length - 1];
    const pageInfo = pageInfoFor(
      {
        totalRows: listed.totalRows,
        pageSize: size,
        start: listed.start,
        rowCount: listed.rows.length,
        scope,
        ...(first && last ? { firstKey: sortKeyOf(list, first), lastKey: sortKeyOf(list, last) } : {}),
      },
      d.pageTokenSecret,
    );
    render(res, session, 'Flaky and quarantined tests', testsBody({ repos, repoId, list, rows: listed.rows, page: pageInfo }));
  });

  const prAction = (verb: 'cancel' | 'restart') =>
    action(`/queues/:queueId/prs/:prNumber/${verb}`, 'write', async (req, session) => {
      const { repo, branch, view } = await queueOf(String(req.params.queueId));
      const prNumber = prNumberOf(String(req.params.prNumber));
      const command: QueueCommand =
        verb === 'cancel' ? { type: 'CancelPullRequest', prNumber } : { type: 'RestartTestsOnPullRequest', prNumber };
      await deps.commands.execute({ repo, branch }, command, {
        actor: session.name,
        correlationId: String(req.res?.locals.requestId ?? ''),
      });
      return prPath(view.queueId, prNumber);
    });
  prAction('cancel');
  prAction('restart');

  action('/queues/:queueId/state', 'admin', async (req, session) => {
    const { repo, branch, view } = await queueOf(String(req.params.queueId));
    const state = (req.body as Record<string, unknown>).state;
    if (state !== 'running' && state !== 'paused' && state !== 'draining')
      throw new PageError(400, 'The state must be running, paused or draining.');
    await deps.commands.execute(
      { repo, branch },
      { type: 'UpdateQueue', settings: {}, state },
      { actor: session.name, correlationId: String(req.res?.locals.requestId ?? '') },
    );
    return queuePath(view.queueId);
  });

  action('/queues', 'admin', async (req, session) => {
    const request = formRequest(() => createRequestOfForm(req.body as Record<string, unknown>));
    await deps.commands.execute({ repo: request.repo, branch: request.targetBranch }, createQueueCommandOf(request), {
      actor: session.name,
      correlationId: String(req.res?.locals.requestId ?? ''),
    });
    return queuePath(queueIdOf(request.repo, request.targetBranch));
  });

  action('/queues/:queueId/settings', 'admin', async (req, session) => {
    const { repo, branch, view } = await queueOf(String(req.params.queueId));
    const request = formRequest(() => updateRequestOfForm(view, req.body as Record<string, unknown>));
    await deps.commands.execute({ repo, branch }, updateQueueCommandOf(request), {
      actor: session.name,
      correlationId: String(req.res?.locals.requestId ?? ''),
    });
    return queuePath(view.queueId);
  });

  webhookPages({
    pageRoute,
    action,
    render,
    csrfFor: (session) => sessions.csrfFor(session.id),
    tokens: deps.tokens,
    webhooks: d.webhooks,
  });

  // Server-sent events: one `change` whenever the read models move, which the page's script turns into a refresh.
  router.get('/dashboard/events', async (req, res) => {
    const session = await sessions.of(req);
    if (!session) return void res.status(401).end();
    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.flushHeaders();
    let open = true;
    req.on('close', () => {
      open = false;
    });
    let seen = (await readModels.checkpoint()) ?? -1n;
    while (open) {
      const moved = await readModels.waitFor(seen + 1n, 15_000);
      if (!open) break;
      if (moved) {
        seen = (await readModels.checkpoint()) ?? seen;
        res.write(`event: change\ndata: ${seen.toString()}\n\n`);
        // At most a few refreshes a second, however fast the queue moves.
        await new Promise((r) => setTimeout(r, 250));
      } else res.write(': idle\n\n');
    }
  });

  return router;
};

/** A form read as an API request; what the API's schema refuses is a 400 that names the field. */
const formRequest = <T>(read: () => T): T => {
  try {
    return read();
  } catch (err) {
    if (err instanceof FormError) throw new PageError(400, `Not saved: ${err.message}`);
    throw err;
  }
};

const isRunOf = (data: Record<string, unknown>, prNumber: number): boolean =>
  Array.isArray(data.prNumbers) && (data.prNumbers as unknown[]).includes(prNumber);
