import express, { Router } from 'express';
import {
  DELIVERY_ID,
  digestWebhook,
  isIgnored,
  type DeliveryLog,
  type DigestOptions,
  type WebhookDigest,
  type WebhookVerifier,
} from '@railyard/github';
import { errorFields, type Logger } from '@railyard/observability';
import { ApiError } from '../http/errors';
import type { EngineCommand } from '@railyard/domain';
import type { QueueWriter } from '@railyard/runtime';
import type { WebhookHandler } from './webhook-handler';

export const WEBHOOK_PATH = '/github/webhooks';
/** GitHub caps a webhook payload at 25 MB and drops larger ones itself. */
const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

export interface GithubWebhookOptions {
  verifier: WebhookVerifier;
  deliveries: DeliveryLog;
  handler: WebhookHandler;
  hostChanges: QueueWriter<EngineCommand>;
  digest: DigestOptions;
  logger: Logger;
}

/** A push matters only to a branch that has a queue; others are acknowledged and dropped unrecorded. */
const pushIsQueued = async (o: GithubWebhookOptions, d: WebhookDigest): Promise<boolean> => {
  const hint = d.hints[0];
  if (d.event !== 'push' || hint?.kind !== 'branch') return true;
  return (await o.hostChanges.read({ repo: hint.repo, branch: hint.branch })).exists;
};

/**
 * `POST /github/webhooks` (docs/github.md): the body is read raw, since the signature covers the exact
 * bytes GitHub sent. A bad or missing signature is a 401 with nothing recorded; an event Railyard does
 * not consume is a 202 and ignored; a delivery id, or the command it carries, already handled is a 200
 * and done again by no one.
 */
export const githubWebhookRouter = (o: GithubWebhookOptions): Router => {
  const router = Router();
  router.post(WEBHOOK_PATH, express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const verified = await o.verifier.verify(raw, req.headers);
    if (!verified.ok) {
      if (verified.reason === 'invalid-payload')
        throw new ApiError(400, 'INVALID_WEBHOOK_PAYLOAD', 'the webhook body is not a JSON object');
      throw new ApiError(401, 'WEBHOOK_SIGNATURE_INVALID', `the webhook was refused: ${verified.reason}`);
    }
    const deliveryId = verified.event.id;
    if (!DELIVERY_ID.test(deliveryId)) throw new ApiError(400, 'INVALID_DELIVERY_ID', 'x-github-delivery is not a delivery id');
    const digest = digestWebhook(verified.event.name, verified.event.payload, o.digest);
    if (isIgnored(digest) || !(await pushIsQueued(o, digest))) {
      const ignored = isIgnored(digest) ? digest.ignored : 'push to a branch without a queue';
      o.logger.debug('github webhook ignored', { deliveryId, event: verified.event.name, ignored });
      res.status(202).json({ delivery: deliveryId, ignored });
      return;
    }
    const claim = await o.deliveries.claim(deliveryId, digest);
    if (!claim.claimed) {
      res.status(200).json({ delivery: deliveryId, duplicate: true, state: claim.state });
      return;
    }
    // The same command under a fresh delivery id (a replayed request) is a duplicate too (docs/github.md).
    const { commandKey } = digest;
    const command = commandKey ? await o.deliveries.claimCommand(commandKey, deliveryId) : ({ claimed: true } as const);
    if (!command.claimed) {
      await o.deliveries.finish(deliveryId, `duplicate command (${command.state})`, 'handled');
      o.logger.info('github webhook repeats a command', { deliveryId, event: digest.event, action: digest.action, state: command.state });
      res.status(200).json({ delivery: deliveryId, duplicate: true, state: command.state });
      return;
    }
    const finish = async (outcome: string, how: 'handled' | 'failed') => {
      if (commandKey) await o.deliveries.finishCommand(commandKey, deliveryId, outcome, how);
      await o.deliveries.finish(deliveryId, outcome, how);
    };
    let outcome: string;
    try {
      outcome = await o.handler.handle(deliveryId, digest);
    } catch (err) {
      o.logger.error('github webhook failed', { deliveryId, event: digest.event, action: digest.action, ...errorFields(err) });
      await finish('failed', 'failed');
      throw new ApiError(502, 'GITHUB_UNAVAILABLE', 'the delivery could not be carried out; redeliver it');
    }
    await finish(outcome, 'handled');
    o.logger.info('github webhook', { deliveryId, event: digest.event, action: digest.action, outcome });
    res.status(200).json({ delivery: deliveryId, outcome });
  });
  return router;
};
