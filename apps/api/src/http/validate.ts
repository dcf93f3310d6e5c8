import type { z } from 'zod';
import { ApiError } from './errors';

/** The 400 for invalid fields: every one named in `fields`, and all of them summed up in the message. */
export const validationError = (fields: { field: string; message: string }[]): ApiError =>
  new ApiError(400, 'VALIDATION_FAILED', `invalid request: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`, fields);

/** Parses a body or answers 400 naming every invalid field, so a client fixes them all in one go. */
export const parseBody = <T extends z.ZodType>(schema: T, body: unknown): z.infer<T> => {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const fields = result.error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => ({ field: [...at, k].join('.'), message: 'unknown field' }));
    return [{ field: at.join('.') || '(body)', message: issue.message }];
  });
  throw validationError(fields);
};
