import type { CliSettings } from './config';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** What every command gets: where to write, the CLI's own settings, and the environment for the local stores. */
export interface CliContext {
  io: CommandIo;
  settings: CliSettings;
  /** Passed on to the runtime's own configuration (data dir, git root, event store, Redis) by the local commands. */
  env: NodeJS.ProcessEnv;
}

/** Bad command-line input: exit 2 with the message and a pointer to --help. Nothing has been touched yet. */
export class UsageError extends Error {}

/** A refusal the command explains itself (unknown PR, no such queue, server said no): exit 1, no usage text. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
