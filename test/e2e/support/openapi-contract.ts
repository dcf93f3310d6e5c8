import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;
interface OpenApi {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, Json> }>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json> };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/**
 * Checks real answers against the OpenAPI document the server itself serves: the operation found by
 * method and path, the response by status, its media type, and the body against its schema (ajv,
 * JSON Schema 2020-12 as OpenAPI 3.1 uses). Remembers which operations were seen answering 200.
 */
export const openApiContract = (doc: OpenApi) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const deref = (node: Json, where: 'schemas' | 'responses'): Json => {
    const ref = node.$ref;
    return typeof ref === 'string' ? (doc.components[where][ref.split('/').pop() as string] as Json) : node;
  };
  const routes = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method,
      op,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );
  const seen = new Map<string, Set<number>>();

  const check = (method: string, url: string, answer: Answer): void => {
    const path = new URL(url, 'http://server').pathname;
    const route = routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
    if (!route) throw new Error(`${method} ${path} is not an operation of the document`);
    const documented = route.op.responses[String(answer.status)];
    if (!documented) throw new Error(`${route.op.operationId} answered ${answer.status}, which the document does not list`);
    const content = (deref(documented, 'responses').content ?? {}) as Record<string, { schema: Json }>;
    const type = String(answer.headers['content-type'] ?? '').split(';')[0] as string;
    const media = content[type];
    if (!media) throw new Error(`${route.op.operationId} ${answer.status} came as ${type}; documented: ${Object.keys(content).join(', ')}`);
    const key = `${route.op.operationId} ${answer.status} ${type}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(deref(media.schema, 'schemas'));
      compiled.set(key, validate);
    }
    const body = type === 'application/json' ? answer.body : answer.text;
    if (!validate(body)) {
      throw new Error(`${key} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
    }
    seen.set(route.op.operationId, (seen.get(route.op.operationId) ?? new Set()).add(answer.status));
  };

  return {
    check,
    operationIds: (): string[] => routes.map((r) => r.op.operationId),
    /** Operations never seen answering 200. */
    unseen: (): string[] => routes.map((r) => r.op.operationId).filter((id) => !seen.get(id)?.has(200)),
    seenStatuses: (): Record<string, number[]> => Object.fromEntries([...seen].map(([id, s]) => [id, [...s].sort()])),
  };
};
