import { REST_OPERATIONS, type RestOperation } from './operations';

/**
 * Matches request paths against the operations' templates. Parameters that may hold slashes
 * (a ref, a file path, `base...head`, a branch) match greedily; clients may also send them
 * percent-encoded, as Octokit does.
 */

const GREEDY = new Set(['ref', 'path', 'basehead', 'branch']);

interface CompiledRoute {
  op: RestOperation;
  regex: RegExp;
  names: string[];
}

const compile = (op: RestOperation): CompiledRoute => {
  const names: string[] = [];
  const source = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return GREEDY.has(name) ? '(.+?)' : '([^/]+)';
  });
  return { op, regex: new RegExp(`^${source}$`), names };
};

// More literal text first, so /branches/{branch}/protection wins over /branches/{branch}.
const ROUTES = REST_OPERATIONS.map(compile).sort(
  (a, b) => b.op.path.replace(/\{\w+\}/g, '').length - a.op.path.replace(/\{\w+\}/g, '').length,
);

export const matchRoute = (method: string, pathname: string): { op: RestOperation; params: Record<string, string> } | null => {
  for (const route of ROUTES) {
    if (route.op.method !== method) continue;
    const match = route.regex.exec(pathname);
    if (!match) continue;
    const params: Record<string, string> = {};
    try {
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1] as string)));
    } catch {
      return null;
    }
    return { op: route.op, params };
  }
  return null;
};
