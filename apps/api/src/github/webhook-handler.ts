import { DomainError, hostCancelReason, isTerminal, type QueueCommand, type RepoRef } from '@railyard/domain';
import {
  parseCommentCommand,
  type GithubApp,
  type GithubOctokit,
  type WebhookComment,
  type WebhookDigest,
  type WebhookPull,
} from '@railyard/github';
import { errorFields, type Logger } from '@railyard/observability';
import type { QueueCommands } from '../queue-commands';
import type { EngineCommand } from '@railyard/domain';
import type { QueueWriter } from '@railyard/runtime';
import { GITHUB_ACTOR } from './host-commands';
import { hasWriteAccess, readPullSnapshot } from './pull-snapshot';

export interface WebhookHandlerDeps {
  github: Pick<GithubApp, 'installation'>;
  commands: QueueCommands;
  hostChanges: QueueWriter<EngineCommand>;
  logger: Logger;
}

type Reaction = '+1' | 'confused';

/**
 * Carries out what a recorded delivery asks of the queues (docs/github.md, "What happens on each
 * event"). Every step is safe to repeat: a redelivery that a crashed handler never finished is
 * carried out again, and the domain's decide turns a repeated command into nothing.
 */
export class WebhookHandler {
  constructor(private readonly deps: WebhookHandlerDeps) {}

  /** Answers a short outcome for the log and the delivery record. */
  async handle(deliveryId: string, digest: WebhookDigest): Promise<string> {
    if (digest.repo && digest.pull) return this.onPull(deliveryId, digest.repo, digest.pull);
    if (digest.repo && digest.comment && digest.installationId !== undefined)
      return this.onComment(deliveryId, digest.repo, digest.installationId, digest.comment);
    // Pushes, statuses, checks and installations are hints for the engine, recorded with the delivery.
    return digest.hints.length > 0 ? 'hinted' : 'nothing to do';
  }

  /** A push to a queued PR, its closing or its retargeting takes it out of the queue, with the reason. */
  private async onPull(deliveryId: string, repo: RepoRef, pull: WebhookPull): Promise<string> {
    const outcomes: string[] = [];
    for (const branch of new Set([pull.baseBranch, ...(pull.previousBase ? [pull.previousBase] : [])])) {
      const state = await this.deps.hostChanges.read({ repo, branch });
      const entry = state.exists ? state.entries.get(pull.number) : undefined;
      if (!entry || isTerminal(entry.state)) continue;
      const reason = hostCancelReason(branch, entry, pull);
      if (!reason) continue;
      // A PR whose tests passed may be landing right now, and the engine closes a squashed or rebased PR
      // itself after landing it: that close must not cancel it. The engine decides (it recognises a
      // landed change before it looks at the PR's state); the delivery's hint asks it to.
      if (entry.state === 'tests_passed') {
        outcomes.push(`left to the engine on ${branch}: ${reason} while landing`);
        continue;
      }
      await this.deps.hostChanges.execute(
        { repo, branch },
        { type: 'CancelForHostChange', prNumber: pull.number, reason },
        { actor: GITHUB_ACTOR, correlationId: deliveryId },
      );
      outcomes.push(`cancelled on ${branch}: ${reason}`);
    }
    return outcomes.length > 0 ? outcomes.join('; ') : 'no queued entry changed';
  }

  private async onComment(deliveryId: string, repo: RepoRef, installationId: number, comment: WebhookComment): Promise<string> {
    const command = parseCommentCommand(comment.body);
    if (!command) return 'not a command';
    const octokit = await this.deps.github.installation(installationId);
    if (command.kind === 'invalid') {
      await this.react(octokit, repo, comment, 'confused');
      return `invalid command: ${command.problem}`;
    }
    if (!(await hasWriteAccess(octokit, repo, comment.login))) {
      await this.react(octokit, repo, comment, 'confused');
      return `refused: ${comment.login} has no write access`;
    }
    const pr = await readPullSnapshot(octokit, repo, comment.number);
    if (!pr) {
      await this.react(octokit, repo, comment, 'confused');
      return 'pull request not found';
    }
    let queueCommand: QueueCommand;
    if (command.kind === 'merge')
      queueCommand = { type: 'SubmitPullRequest', pr, ...(command.priority !== undefined ? { priority: command.priority } : {}) };
    else if (command.kind === 'cancel') queueCommand = { type: 'CancelPullRequest', prNumber: pr.number };
    else queueCommand = { type: 'RestartTestsOnPullRequest', prNumber: pr.number };
    try {
      await this.deps.commands.execute({ repo, branch: pr.baseBranch }, queueCommand, {
        actor: `github:${comment.login}`,
        correlationId: deliveryId,
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // The queue's refusal (no queue for the base, PR not open, nothing to restart) is the comment's answer.
      await this.react(octokit, repo, comment, 'confused');
      return `${command.kind} refused: ${err.code}`;
    }
    await this.react(octokit, repo, comment, '+1');
    return `${command.kind} by ${comment.login}`;
  }

  /** The answer to a command is a reaction on its comment; GitHub keeps one reaction per kind and user, so repeating it adds none. */
  private async react(octokit: GithubOctokit, repo: RepoRef, comment: WebhookComment, content: Reaction): Promise<void> {
    try {
      await octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        owner: repo.owner,
        repo: repo.name,
        comment_id: comment.commentId,
        content,
      });
    } catch (err) {
      // The command itself is recorded; a missing reaction is not worth failing the delivery for.
      this.deps.logger.warn('could not react to a comment command', { commentId: comment.commentId, content, ...errorFields(err) });
    }
  }
}
