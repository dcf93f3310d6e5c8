import type { Request, Response } from 'express';
import type { Scope, TokenRegistry } from '@railyard/auth';
import type { DeliveryAttempt, EndpointView } from '@railyard/webhooks';
import type { ZodError } from 'zod';
import { ApiError } from '../http/errors';
import type { Operation } from '../http/operation';
import { webhookOperations, type WebhookApiParts } from '../routes/webhooks';
import type { SafeHtml } from './html';
import { PageError, type Shown } from './page-error';
import { endpointBody, endpointPath, secretBody, webhooksBody, WEBHOOKS_PATH } from './pages/webhooks';
import type { Session } from './session';

type Deps = { tokens: TokenRegistry; webhooks?: WebhookApiParts };
type Form = Record<string, unknown>;

/** What the dashboard's router lends these pages: its page and form routes, which check session, CSRF and scope. */
export interface PageKit {
  pageRoute(path: string, handler: (req: Request, res: Response, session: Session) => Promise<void>): void;
  action(path: string, scope: Scope, handler: (req: Request, session: Session) => Promise<string | Shown>): void;
  render(res: Response, session: Session, title: string, body: SafeHtml): void;
  csrfFor(session: Session): string;
  tokens: TokenRegistry;
  webhooks: WebhookApiParts | undefined;
}

const OPERATIONS = new Map(webhookOperations.map((op) => [op.operationId, op as Operation<Deps>]));

const problemOf = (err: ZodError): string =>
  err.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');

const text = (form: Form, name: string): string => {
  const v = form[name];
  return typeof v === 'string' ? v.trim() : '';
};
const listOf = (form: Form, name: string): string[] =>
  text(form, name)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** `host/owner/name`, the way the pages write a repository; anything else is refused naming the field. */
const reposOf = (form: Form): { host: string; owner: string; name: string }[] =>
  listOf(form, 'repos').map((r) => {
    const [host, owner, name, ...rest] = r.split('/');
    if (!host || !owner || !name || rest.length > 0)
      throw new PageError(400, `Not saved: repos: write each as host/owner/name, not "${r}"`);
    return { host, owner, name };
  });

/** The add form as a createWebhookEndpoint request: empty fields are left out (the operation's "all"). */
const createInputOf = (form: Form): Record<string, unknown> => {
  const out: Record<string, unknown> = { kind: text(form, 'kind') || 'webhook', url: text(form, 'url') };
  if (text(form, 'description')) out.description = text(form, 'description');
  for (const name of ['events', 'targetBranches']) if (listOf(form, name).length > 0) out[name] = listOf(form, name);
  const repos = reposOf(form);
  if (repos.length > 0) out.repos = repos;
  return out;
};

/**
 * The webhook endpoints' pages (docs/dashboard.md, "Webhooks"). Every change runs the API's own
 * operation (apps/api/src/routes/webhooks.ts): its zod schema judges the form, its handler checks
 * the URL and records the event with the session's token name as the actor, so the page does and
 * refuses exactly what the API does. Secrets are shown once, on the page that answers create and
 * rotate; a non-admin sees the endpoints' state but not their paths, the log or the controls.
 */
export const webhookPages = (kit: PageKit): void => {
  const call = async (operationId: string, input: unknown, req: Request, actor: string): Promise<unknown> => {
    const op = OPERATIONS.get(operationId);
    if (!op?.request) throw new Error(`no webhook operation ${operationId}`);
    const parsed = op.request.schema.safeParse(input);
    if (!parsed.success) throw new PageError(400, `Not saved: ${problemOf(parsed.error)}`);
    const deps: Deps = { tokens: kit.tokens, ...(kit.webhooks ? { webhooks: kit.webhooks } : {}) };
    try {
      return await op.handle(parsed.data, {
        deps,
        actor,
        correlationId: String(req.res?.locals.requestId ?? ''),
        req,
        res: req.res as Response,
      });
    } catch (err) {
      if (err instanceof ApiError) throw new PageError(err.status, err.message);
      throw err;
    }
  };
  const endpoints = async (req: Request, session: Session): Promise<EndpointView[]> =>
    ((await call('listWebhookEndpoints', {}, req, session.name)) as { endpoints: EndpointView[] }).endpoints;
  const endpointOf = async (req: Request, session: Session): Promise<EndpointView> => {
    const id = String(req.params.endpointId);
    const found = (await endpoints(req, session)).find((e) => e.endpointId === id);
    if (!found) throw new PageError(404, 'No such webhook endpoint.');
    return found;
  };
  const secretShown = (answer: unknown, title: string): Shown => {
    const { endpoint, secret } = answer as { endpoint: EndpointView; secret: string };
    return { title, body: secretBody(endpoint, secret) };
  };

  kit.pageRoute(WEBHOOKS_PATH, async (req, res, session) => {
    const admin = session.scope === 'admin' ? { csrf: kit.csrfFor(session) } : undefined;
    kit.render(res, session, 'Webhook endpoints', webhooksBody(await endpoints(req, session), admin));
  });

  kit.pageRoute(`${WEBHOOKS_PATH}/:endpointId`, async (req, res, session) => {
    if (session.scope !== 'admin')
      throw new PageError(403, `Token "${session.name}" has scope ${session.scope}; an endpoint's page needs admin.`);
    const endpoint = await endpointOf(req, session);
    const { deliveries } = (await call('listWebhookDeliveries', { endpointId: endpoint.endpointId, limit: 50 }, req, session.name)) as {
      deliveries: Omit<DeliveryAttempt, 'body' | 'endpointId'>[];
    };
    kit.render(res, session, `Webhook ${endpoint.description || endpoint.url}`, endpointBody(endpoint, deliveries, kit.csrfFor(session)));
  });

  kit.action(WEBHOOKS_PATH, 'admin', async (req, session) =>
    secretShown(await call('createWebhookEndpoint', createInputOf(req.body as Form), req, session.name), 'Endpoint added'),
  );

  const byId = (verb: string, run: (req: Request, session: Session, endpointId: string) => Promise<string | Shown>) =>
    kit.action(`${WEBHOOKS_PATH}/:endpointId/${verb}`, 'admin', (req, session) => run(req, session, String(req.params.endpointId)));

  byId('enable', async (req, session, endpointId) => {
    await call('updateWebhookEndpoint', { endpointId, enabled: true }, req, session.name);
    return endpointPath(endpointId);
  });
  byId('disable', async (req, session, endpointId) => {
    await call('disableWebhookEndpoint', { endpointId }, req, session.name);
    return endpointPath(endpointId);
  });
  byId('rotate', async (req, session, endpointId) =>
    secretShown(await call('rotateWebhookSecret', { endpointId }, req, session.name), 'Secret rotated'),
  );
  byId('delete', async (req, session, endpointId) => {
    await call('deleteWebhookEndpoint', { endpointId }, req, session.name);
    return WEBHOOKS_PATH;
  });
  byId('resend', async (req, session, endpointId) => {
    const raw = text(req.body as Form, 'attemptId');
    await call('resendWebhookDelivery', { endpointId, attemptId: /^\d{1,15}$/.test(raw) ? Number(raw) : raw }, req, session.name);
    return endpointPath(endpointId);
  });
};
