/**
 * What the Trunk extraction scripts (extract-trunk-contract.ts, extract-trunk-webhooks.ts) share:
 * the JSON types and `strip`, which keeps a schema's structure and drops its prose and examples.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// Prose and sample values validate nothing.
const DROPPED_KEYS = new Set(['description', 'example', 'examples', 'externalDocs', 'summary']);

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `node` without prose. Inside a `properties` map every key is a property name (one may be called "description"). */
export const strip = (node: Json, keysAreNames = false): Json => {
  if (Array.isArray(node)) return node.map((item) => strip(item));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string') throw new Error(`a reference (${node.$ref}): this script copies inline schemas only`);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (!keysAreNames && (DROPPED_KEYS.has(key) || key.startsWith('x-'))) continue;
    out[key] = strip(value, !keysAreNames && (key === 'properties' || key === 'patternProperties'));
  }
  return out;
};
