/**
 * Copies the schemas of the REST operations and webhook events the fake GitHub implements
 * (libs/testkit/src/fake-github/operations.ts) out of GitHub's published descriptions, with one
 * example payload per webhook event and action, into libs/testkit/src/fake-github/schemas/.
 * The packages are too large to be dependencies (docs/decisions.md D81); install the pinned
 * versions somewhere else and point the script at that node_modules:
 *
 *   npm install --prefix /tmp/github-schemas --no-save @octokit/openapi@23.0.2 \
 *     @octokit/openapi-webhooks@12.1.0 @octokit/webhooks-examples@7.6.1
 *   node --import tsx scripts/extract-github-schemas.ts /tmp/github-schemas/node_modules
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { REST_OPERATIONS, WEBHOOK_EVENTS, webhookSchemaKey } from '../libs/testkit/src/fake-github/operations';

const PINNED = {
  '@octokit/openapi': '23.0.2',
  '@octokit/openapi-webhooks': '12.1.0',
  '@octokit/webhooks-examples': '7.6.1',
} as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const OUT_DIR = path.join(__dirname, '..', 'libs', 'testkit', 'src', 'fake-github', 'schemas');
// Prose and sample values make the files several times larger and validate nothing.
const DROPPED_KEYS = new Set(['description', 'example', 'examples', 'externalDocs', 'summary']);

const readJson = (file: string): JsonObject => JSON.parse(readFileSync(file, 'utf8')) as JsonObject;

const checkVersions = (modules: string): void => {
  for (const [name, version] of Object.entries(PINNED)) {
    const found = readJson(path.join(modules, name, 'package.json')).version;
    if (found !== version) throw new Error(`${name} is ${String(found)} in ${modules}; this script extracts ${version}`);
  }
};

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a local `#/a/b` reference inside `doc`. */
const resolvePointer = (doc: JsonObject, ref: string): Json => {
  let node: Json = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) {
    if (!isObject(node)) throw new Error(`dangling reference ${ref}`);
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')] as Json;
  }
  if (node === undefined) throw new Error(`dangling reference ${ref}`);
  return node;
};

/**
 * Copies `node` without prose, inlining references outside components/schemas (responses,
 * parameters) and collecting the names of the component schemas it refers to. Inside a
 * `properties` map every key is a property name (one may well be called "description").
 */
const strip = (doc: JsonObject, node: Json, schemaRefs: Set<string>, keysAreNames = false): Json => {
  if (Array.isArray(node)) return node.map((item) => strip(doc, item, schemaRefs));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && !keysAreNames) {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    if (match) {
      schemaRefs.add(match[1] as string);
      return { $ref: ref };
    }
    return strip(doc, resolvePointer(doc, ref), schemaRefs);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (!keysAreNames && (DROPPED_KEYS.has(key) || key.startsWith('x-'))) continue;
    out[key] = strip(doc, value, schemaRefs, !keysAreNames && (key === 'properties' || key === 'patternProperties'));
  }
  return out;
};

/** Adds every component schema reachable from `pending` to `into`. */
const closeOverSchemas = (doc: JsonObject, pending: Set<string>, into: JsonObject): void => {
  const queue = [...pending];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (name in into) continue;
    const refs = new Set<string>();
    into[name] = strip(doc, resolvePointer(doc, `#/components/schemas/${name}`), refs);
    for (const next of refs) if (!(next in into)) queue.push(next);
  }
};

const sorted = (obj: JsonObject): JsonObject => Object.fromEntries(Object.entries(obj).sort(([a], [b]) => a.localeCompare(b)));

const jsonSchemaOf = (doc: JsonObject, content: Json, refs: Set<string>): Json => {
  const media = isObject(content) ? content['application/json'] : undefined;
  return isObject(media) && media.schema !== undefined ? strip(doc, media.schema, refs) : null;
};

/** Where a description came from, recorded in the extracted file. */
const sourceOf = (name: keyof typeof PINNED, doc: JsonObject): JsonObject => ({
  package: name,
  version: PINNED[name],
  file: 'generated/api.github.com.json',
  openapi: doc.openapi ?? null,
});

const extractRest = (modules: string): JsonObject => {
  const doc = readJson(path.join(modules, '@octokit/openapi/generated/api.github.com.json'));
  const refs = new Set<string>(['basic-error', 'validation-error']);
  const operations: JsonObject = {};
  for (const op of REST_OPERATIONS) {
    const item = (doc.paths as JsonObject)[op.path];
    const found = isObject(item) ? item[op.method.toLowerCase()] : undefined;
    if (!isObject(found) || found.operationId !== op.id) throw new Error(`${op.method} ${op.path} is not ${op.id} in the description`);
    const responses: JsonObject = {};
    for (const [status, raw] of Object.entries(found.responses as JsonObject)) {
      const response = isObject(raw) && typeof raw.$ref === 'string' ? resolvePointer(doc, raw.$ref) : raw;
      responses[status] = isObject(response) ? jsonSchemaOf(doc, response.content ?? null, refs) : null;
    }
    const body = isObject(found.requestBody) ? found.requestBody : null;
    operations[op.id] = {
      method: op.method,
      path: op.path,
      requestBody: body === null ? null : jsonSchemaOf(doc, body.content ?? null, refs),
      responses,
    };
  }
  const schemas: JsonObject = {};
  closeOverSchemas(doc, refs, schemas);
  return {
    source: sourceOf('@octokit/openapi', doc),
    operations,
    components: { schemas: sorted(schemas) },
  };
};

const webhookKeys = (): string[] =>
  Object.entries(WEBHOOK_EVENTS).flatMap(([event, actions]) => actions.map((action) => webhookSchemaKey(event, action)));

const extractWebhooks = (modules: string): JsonObject => {
  const doc = readJson(path.join(modules, '@octokit/openapi-webhooks/generated/api.github.com.json'));
  const refs = new Set<string>();
  const events: JsonObject = {};
  for (const key of webhookKeys()) {
    const hook = (doc.webhooks as JsonObject)[key];
    const post = isObject(hook) ? hook.post : undefined;
    const body = isObject(post) ? post.requestBody : undefined;
    const schema = isObject(body) ? jsonSchemaOf(doc, body.content ?? null, refs) : null;
    if (schema === null) throw new Error(`no webhook schema for ${key}`);
    events[key] = schema;
  }
  const schemas: JsonObject = {};
  closeOverSchemas(doc, refs, schemas);
  return {
    source: sourceOf('@octokit/openapi-webhooks', doc),
    events,
    components: { schemas: sorted(schemas) },
  };
};

/** The first published example of each event and action; events without one are built by the fake from a sibling. */
const extractExamples = (modules: string): JsonObject => {
  const all = JSON.parse(readFileSync(path.join(modules, '@octokit/webhooks-examples/api.github.com/index.json'), 'utf8')) as {
    name: string;
    examples: JsonObject[];
  }[];
  const examples: JsonObject = {};
  for (const [event, actions] of Object.entries(WEBHOOK_EVENTS)) {
    const published = all.find((entry) => entry.name === event)?.examples ?? [];
    for (const action of actions) {
      const example = published.find((payload) => (payload.action ?? null) === action);
      if (example !== undefined) examples[webhookSchemaKey(event, action)] = example;
    }
  }
  return {
    source: { package: '@octokit/webhooks-examples', version: PINNED['@octokit/webhooks-examples'], file: 'api.github.com/index.json' },
    examples,
  };
};

/** Written as the repository's prettier writes JSON, so `npm run lint` accepts the files as they come out. */
const write = async (name: string, data: JsonObject): Promise<void> => {
  const file = path.join(OUT_DIR, name);
  const options = (await resolveConfig(file)) ?? {};
  writeFileSync(file, await format(JSON.stringify(data), { ...options, filepath: file }));
  console.log(`wrote ${path.relative(process.cwd(), file)} (${Math.round(readFileSync(file).length / 1024)} KiB)`);
};

const main = async (): Promise<void> => {
  const modules = process.argv[2];
  if (modules === undefined) throw new Error('usage: extract-github-schemas.ts <node_modules holding the pinned @octokit packages>');
  checkVersions(modules);
  await write('rest.json', extractRest(modules));
  await write('webhooks.json', extractWebhooks(modules));
  await write('webhook-examples.json', extractExamples(modules));
};

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
