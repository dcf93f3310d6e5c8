import winston from 'winston';

export type Logger = winston.Logger;

/**
 * Structured JSON logs on stdout. Callers log ids, names and counts; never tokens or request bodies.
 * RAILYARD_LOG_LEVEL sets the level; tests default to silence.
 */
export const createLogger = (
  service: string,
  level = process.env.RAILYARD_LOG_LEVEL ?? (process.env.JEST_WORKER_ID ? 'silent' : 'info'),
): Logger =>
  winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(winston.format.errors({ stack: true }), winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service },
    transports: [new winston.transports.Console()],
  });

/** winston drops an Error nested in meta to `{}`; this keeps what an operator needs. */
export const errorFields = (err: unknown): Record<string, unknown> =>
  err instanceof Error
    ? { err: { name: err.name, message: err.message, stack: err.stack, code: (err as { code?: unknown }).code } }
    : { err: String(err) };
