import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { build } from '../../scripts/build/build';
import { workspaces } from '../../scripts/build/sources';

interface Manifest {
  main?: string;
  types?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  bin?: Record<string, string>;
}

// `npm run build` (docs/operations.md, "Build"; docs/decisions.md D90).
describe('the production build', () => {
  let tmp: string;
  let out: string;
  const manifest = (rel: string) => JSON.parse(readFileSync(path.join(out, rel, 'package.json'), 'utf8')) as Manifest;

  beforeAll(async () => {
    tmp = await makeTempDir('railyard-build-out-');
    out = path.join(tmp, 'app');
    build({ outDir: out, links: false });
  }, 120_000);
  afterAll(() => removeTempDir(tmp));

  it('when built, then every workspace manifest points at its compiled entry and keeps no development field', () => {
    for (const ws of workspaces()) {
      const pkg = manifest(ws);
      expect({ ws, main: pkg.main?.endsWith('.js') }).toEqual({ ws, main: true });
      expect(existsSync(path.join(out, ws, pkg.main ?? ''))).toBe(true);
      expect({ ws, types: pkg.types, dev: pkg.devDependencies, tsx: pkg.dependencies?.tsx }).toEqual({
        ws,
        types: undefined,
        dev: undefined,
        tsx: undefined,
      });
    }
  });

  it("when built, then the root's scripts start compiled entry points and its lock is the checkout's", () => {
    const root = manifest('.');
    expect(root.devDependencies).toBeUndefined();
    expect(root.dependencies?.tsx).toBeUndefined();
    for (const script of Object.values(root.scripts ?? {})) {
      const [node, file] = script.split(' ');
      expect(node).toBe('node');
      expect(existsSync(path.join(out, file ?? ''))).toBe(true);
    }
    expect(readFileSync(path.join(out, 'package-lock.json'), 'utf8')).toBe(
      readFileSync(path.join(__dirname, '../../package-lock.json'), 'utf8'),
    );
  });

  it("when a workspace has a command, then the output's runs the compiled code with no TypeScript loader", () => {
    const cli = manifest('apps/cli');
    for (const file of Object.values(cli.bin ?? {})) {
      const text = readFileSync(path.join(out, 'apps/cli', file), 'utf8');
      expect(text).not.toMatch(/tsx|\.ts['"]/);
      expect(text).toMatch(/require\('\.\.\/src\/main\.js'\)/);
    }
  });

  it('when built, then the sources are compiled and the test files left out', () => {
    expect(existsSync(path.join(out, 'libs/domain/src/index.js'))).toBe(true);
    const shipped = readFileSync(path.join(out, 'libs/domain/package.json'), 'utf8');
    expect(shipped).toContain('src/index.js');
    expect(existsSync(path.join(out, 'apps/api/src/test-health/parse-pool.test.js'))).toBe(false);
  });

  it("when asked to build into someone's non-empty directory, then it refuses and leaves it as it was", async () => {
    const theirs = await makeTempDir('railyard-not-a-build-');
    try {
      writeFileSync(path.join(theirs, 'notes.txt'), 'mine\n');
      expect(() => build({ outDir: theirs, links: false })).toThrow(/not empty and holds no earlier build/);
      expect(readFileSync(path.join(theirs, 'notes.txt'), 'utf8')).toBe('mine\n');
    } finally {
      await removeTempDir(theirs);
    }
  });
});
