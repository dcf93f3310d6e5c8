/**
 * Counts the repository files that importing one module pulls in, following every import the way
 * TypeScript resolves it (workspace packages through node_modules/@railyard/* symlinks, tsconfig
 * paths when set). Files under node_modules that are not workspace packages are not followed.
 *
 *   node --import tsx scripts/import-closure.ts @railyard/runtime
 *
 * Prints the total and the count per workspace package; used to measure how far a library reaches
 * (docs/architecture.md, "Boundaries").
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '..');

const compilerOptions = (): ts.CompilerOptions => {
  const file = path.join(root, 'tsconfig.json');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(file, ts.sys.readFile).config, ts.sys, root);
  return parsed.options;
};

const isRepositoryFile = (file: string): boolean =>
  file.startsWith(root + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`);

/** Every repository file reachable from `entry` (a package name or a path), the entry included. */
export const importClosure = (entry: string): string[] => {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const first = ts.resolveModuleName(entry, path.join(root, 'index.ts'), options, host).resolvedModule?.resolvedFileName;
  const start = first ? realpathSync(first) : path.resolve(root, entry);
  const seen = new Set<string>([start]);
  const pending = [start];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const imported of importedFiles) {
      const resolved = ts.resolveModuleName(imported.fileName, file, options, host).resolvedModule?.resolvedFileName;
      if (!resolved) continue;
      const real = realpathSync(resolved);
      if (!isRepositoryFile(real) || seen.has(real)) continue;
      seen.add(real);
      pending.push(real);
    }
  }
  return [...seen].sort();
};

const packageOf = (file: string): string => path.relative(root, file).split(path.sep).slice(0, 2).join('/');

if (require.main === module) {
  const entry = process.argv[2];
  if (!entry) throw new Error('usage: import-closure.ts <module>');
  const files = importClosure(entry);
  const perPackage = new Map<string, number>();
  for (const f of files) perPackage.set(packageOf(f), (perPackage.get(packageOf(f)) ?? 0) + 1);
  console.log(`${entry}: ${files.length} files`);
  for (const [pkg, n] of [...perPackage].sort((a, b) => b[1] - a[1])) console.log(`  ${pkg}: ${n}`);
}
