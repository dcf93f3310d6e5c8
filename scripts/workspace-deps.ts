/**
 * Keeps each workspace's package.json honest: every package a workspace's files import is declared
 * there, with an exact version (docs/architecture.md, "Boundaries"). Imports from test files
 * (`*.test.ts`, `*.contract.ts`, `testing/`, `fixtures`) count as devDependencies unless production
 * code imports the same package.
 *
 *   node --import tsx scripts/workspace-deps.ts --check   # exit 1 and list what is missing or extra
 *   node --import tsx scripts/workspace-deps.ts --write   # rewrite the dependency sections
 *
 * Versions come from the installed copy (node_modules/<name>/package.json), so they match the lock.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '..');
const builtins = new Set(builtinModules);

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}

const workspaceDirs = (): string[] =>
  ['libs', 'apps'].flatMap((group) =>
    readdirSync(path.join(root, group))
      .map((name) => path.join(root, group, name))
      .filter((dir) => statSync(path.join(dir, 'package.json'), { throwIfNoEntry: false })?.isFile()),
  );

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(full);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });

const isTestFile = (file: string): boolean =>
  /\.(test|contract)\.ts$/.test(file) || /[/\\](testing|fixtures?)[/\\]/.test(file) || /[/\\](testing|fixtures?)\.ts$/.test(file);

/** `lodash/fp` → `lodash`, `@scope/pkg/x` → `@scope/pkg`; relative paths and node built-ins → undefined. */
const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
  return builtins.has(name) ? undefined : name;
};

/** The version the workspace gets: npm nests a version other than the root's under the workspace. */
const installedVersion = (name: string, dir: string): string => {
  const nested = path.join(dir, 'node_modules', name, 'package.json');
  const file = existsSync(nested) ? nested : path.join(root, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
};

/** What the workspace's files import, split into production and test-only packages. */
export const importsOf = (dir: string, self: string): { dependencies: Set<string>; devDependencies: Set<string> } => {
  const dependencies = new Set<string>();
  const devDependencies = new Set<string>();
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    // require.resolve('x/package.json') locates a package's files without importing it.
    const resolved = [...text.matchAll(/require\.resolve\(\s*'([^']+)'/g)].map((m) => m[1] as string);
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const specifier of [...importedFiles.map((f) => f.fileName), ...resolved]) {
      const name = packageOf(specifier);
      if (!name || name === self) continue;
      (isTestFile(file) ? devDependencies : dependencies).add(name);
    }
  }
  for (const name of dependencies) devDependencies.delete(name);
  return { dependencies, devDependencies };
};

const sorted = (names: Set<string>, dir: string): Record<string, string> =>
  Object.fromEntries([...names].sort().map((name) => [name, installedVersion(name, dir)]));

const sameKeys = (a: Record<string, string> | undefined, b: Record<string, string>): boolean =>
  JSON.stringify(Object.keys(a ?? {}).sort()) === JSON.stringify(Object.keys(b).sort());

/** Types packages (`@types/x`) a workspace declares are kept: nothing imports them by name. */
const typesOf = (section: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(section ?? {}).filter(([name]) => name.startsWith('@types/')));

if (require.main === module) {
  const mode = process.argv[2];
  if (mode !== '--check' && mode !== '--write') throw new Error('usage: workspace-deps.ts --check | --write');
  const problems: string[] = [];
  for (const dir of workspaceDirs()) {
    const file = path.join(dir, 'package.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    const found = importsOf(dir, manifest.name);
    const dependencies = sorted(found.dependencies, dir);
    const devDependencies = { ...sorted(found.devDependencies, dir), ...typesOf(manifest.devDependencies) };
    const wanted = { dependencies, devDependencies: Object.fromEntries(Object.entries(devDependencies).sort()) };
    const declared = { dependencies: manifest.dependencies ?? {}, devDependencies: manifest.devDependencies ?? {} };
    if (mode === '--check') {
      for (const section of ['dependencies', 'devDependencies'] as const) {
        if (sameKeys(declared[section], wanted[section])) continue;
        const missing = Object.keys(wanted[section]).filter((n) => !(n in declared[section]));
        const extra = Object.keys(declared[section]).filter((n) => !(n in wanted[section]));
        problems.push(`${path.relative(root, file)} ${section}: missing [${missing.join(', ')}], not imported [${extra.join(', ')}]`);
      }
      // A declared version other than the installed one: the lock and the manifest disagree.
      for (const [name, version] of Object.entries(dependencies)) {
        const said = declared.dependencies[name];
        if (said !== undefined && said !== version)
          problems.push(`${path.relative(root, file)} ${name}: declared ${said}, installed ${version}`);
      }
      continue;
    }
    const { dependencies: _d, devDependencies: _dd, ...rest } = manifest;
    const next: Manifest = { ...rest };
    if (Object.keys(wanted.dependencies).length > 0) next.dependencies = wanted.dependencies;
    if (Object.keys(wanted.devDependencies).length > 0) next.devDependencies = wanted.devDependencies;
    writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  }
  if (problems.length > 0) {
    console.error(
      `workspace package.json files do not declare what their code imports (run scripts/workspace-deps.ts --write):\n${problems.join('\n')}`,
    );
    process.exit(1);
  }
}
