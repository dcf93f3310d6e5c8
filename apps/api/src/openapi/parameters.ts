import { z } from 'zod';
import type { ParameterDoc } from '@railyard/api-schema';

/** A required string in the path, e.g. `{testRunId}`. */
export const pathParam = (name: string, description: string, example: string): ParameterDoc => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: z.string(),
  example,
});

/** An optional string in the query. */
export const queryParam = (name: string, description: string, example: string): ParameterDoc => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: z.string(),
  example,
});
