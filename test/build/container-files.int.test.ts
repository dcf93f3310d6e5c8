import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { workspaces } from '../../scripts/build/sources';

// No container engine runs here (docs/operations.md, "Image"): these read the Dockerfile and the compose
// file and hold them to what docs/operations.md promises. test/e2e/production-build.e2e.test.ts runs the
// image's steps themselves.
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

const KEYWORDS = new Set([
  'FROM',
  'RUN',
  'CMD',
  'LABEL',
  'EXPOSE',
  'ENV',
  'ADD',
  'COPY',
  'ENTRYPOINT',
  'VOLUME',
  'USER',
  'WORKDIR',
  'ARG',
  'ONBUILD',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'SHELL',
]);

/** The Dockerfile's instructions, continuation lines joined and comments dropped, grouped by stage. */
const dockerfileStages = (text: string): Instruction[][] => {
  const instructions: Instruction[] = [];
  let pending: Instruction | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (pending === undefined && (line === '' || line.startsWith('#'))) return;
    if (pending !== undefined && line.startsWith('#')) return;
    const continues = line.endsWith('\\');
    const body = continues ? line.slice(0, -1).trim() : line;
    if (pending === undefined) {
      const match = /^([A-Za-z]+)\s+(.*)$/.exec(body);
      if (!match || !KEYWORDS.has((match[1] ?? '').toUpperCase())) throw new Error(`Dockerfile line ${i + 1}: not an instruction: ${raw}`);
      pending = { keyword: (match[1] ?? '').toUpperCase(), args: match[2] ?? '', line: i + 1 };
    } else {
      pending.args = `${pending.args} ${body}`.trim();
    }
    if (!continues) {
      instructions.push(pending);
      pending = undefined;
    }
  });
  if (pending !== undefined) throw new Error('Dockerfile ends inside a continued instruction');
  const stages: Instruction[][] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') stages.push([]);
    const stage = stages[stages.length - 1];
    if (!stage) throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before the first FROM`);
    stage.push(ins);
  }
  return stages;
};

describe('the Dockerfile', () => {
  const stages = dockerfileStages(read('Dockerfile'));
  const runtime = stages[stages.length - 1] ?? [];
  const find = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword);

  it('when read, then every stage is on Node 22 and the image runs on the slim one', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0]?.args).toMatch(/^node:22-bookworm(-slim)?(\s|$)/);
    expect(runtime[0]?.args).toMatch(/^node:22-bookworm-slim\b/);
  });

  it('when a stage installs packages, then only the manifests were copied before, every workspace one among them', () => {
    const manifests = new Set(['package.json', 'package-lock.json', '.npmrc', ...workspaces(ROOT).map((ws) => `${ws}/package.json`)]);
    const build = stages.find((stage) => find(stage, 'COPY').some((c) => !c.args.startsWith('--from')));
    expect(build).toBeDefined();
    const firstInstall = (build ?? []).findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    expect(firstInstall).toBeGreaterThan(0);
    const copiedBefore = (build ?? [])
      .slice(0, firstInstall)
      .filter((i) => i.keyword === 'COPY')
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(copiedBefore.filter((f) => !manifests.has(f))).toEqual([]);
    expect([...manifests].filter((f) => !copiedBefore.includes(f))).toEqual([]);
    for (const stage of stages) {
      for (const copy of find(stage, 'COPY')) expect(copy.args).not.toMatch(/^(--\S+\s+)*\.\s/);
    }
  });

  it('when the image runs, then as a non-root user, from compiled JavaScript, with a node health check on /healthz', () => {
    const user = find(runtime, 'USER').pop();
    expect(user?.args).toBeDefined();
    expect(user?.args).not.toMatch(/^(root|0)(:|$)/);
    const cmd = JSON.parse(find(runtime, 'CMD').pop()?.args ?? '[]') as string[];
    expect(cmd[0]).toBe('node');
    expect(cmd[1]).toMatch(/\.js$/);
    expect(existsSync(path.join(ROOT, (cmd[1] ?? '').replace(/\.js$/, '.ts')))).toBe(true);
    const health = find(runtime, 'HEALTHCHECK').pop()?.args ?? '';
    expect(health).toMatch(/CMD \["node", "-e", ".*\/healthz.*"\]$/);
    expect(runtime.map((i) => i.args).join('\n')).not.toMatch(/\btsx\b|npm (start|run)/);
  });

  it('when its production install runs, then devDependencies are left out', () => {
    const installs = stages.flatMap((s) => find(s, 'RUN')).filter((i) => /\bnpm ci\b/.test(i.args));
    expect(installs.some((i) => /--omit=dev/.test(i.args))).toBe(true);
  });

  it('when the context is sent, then node_modules, build output, data and git history stay out', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '**/node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);
  });
});

interface ComposeService {
  image?: string;
  command?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
  deploy?: { replicas?: number };
  environment?: Record<string, string>;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;

  it('when read, then it runs KurrentDB, Redis, the API, the projector and the engine', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'engine', 'kurrentdb', 'projector', 'redis']);
    expect(services.api?.deploy?.replicas).toBe(2);
  });

  it('when a service depends on another, then it waits for it to be healthy, and every service has a health check', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, healthcheck: (service.healthcheck?.test?.length ?? 0) > 1 }).toEqual({ name, healthcheck: true });
      const deps = service.depends_on ?? {};
      expect(Array.isArray(deps)).toBe(false);
      for (const [dep, { condition }] of Object.entries(deps)) {
        expect(services[dep]).toBeDefined();
        expect({ name, dep, condition }).toEqual({ name, dep, condition: 'service_healthy' });
      }
    }
  });

  it('when the API replicas start, then they hold the shared page-token secret and say where their tokens come from', () => {
    const env = services.api?.environment ?? {};
    expect(env.RAILYARD_PAGE_TOKEN_SECRET).toBeDefined();
    expect(env.RAILYARD_API_TOKENS !== undefined || env.RAILYARD_SECRETS_FROM_DATA_DIR === 'on').toBe(true);
  });

  it("when Railyard's services start, then from the compiled entry points, probed like the image probes", () => {
    const imageCheck = /CMD (\[.*\])$/.exec(
      dockerfileStages(read('Dockerfile'))
        .pop()
        ?.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '',
    );
    for (const name of ['api', 'projector', 'engine']) {
      const command = services[name]?.command ?? [];
      expect(command[0]).toBe('node');
      expect(existsSync(path.join(ROOT, (command[1] ?? '').replace(/\.js$/, '.ts')))).toBe(true);
      expect(['CMD', ...(JSON.parse(imageCheck?.[1] ?? '[]') as string[])]).toEqual(services[name]?.healthcheck?.test);
    }
  });
});
