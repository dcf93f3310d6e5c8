import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { isStale, STAMP } from '../../scripts/build/sources';

// `npm start` runs the compiled build and rebuilds only when isStale says so (docs/operations.md "Build").
describe('when npm start decides whether to build first', () => {
  let root: string;
  let out: string;
  const write = (rel: string, text = 'x') => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  const age = (rel: string, secondsAgo: number) => {
    const t = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path.join(root, rel), t, t);
  };
  const stampBuild = (secondsAgo = 0) => {
    writeFileSync(path.join(out, STAMP), 'built\n');
    const t = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path.join(out, STAMP), t, t);
  };
  const ageEverything = () => {
    for (const rel of [
      'package.json',
      'package-lock.json',
      'libs/a/package.json',
      'libs/a/src/index.ts',
      'libs/a/src',
      'apps/b/package.json',
      'apps/b/src/main.ts',
      'apps/b/src',
    ]) {
      age(rel, 100);
    }
  };

  beforeEach(async () => {
    root = await makeTempDir('railyard-build-');
    out = path.join(root, 'dist');
    mkdirSync(out);
    write('package.json', '{}');
    write('package-lock.json', '{}');
    write('libs/a/package.json', '{"name":"@x/a"}');
    write('libs/a/src/index.ts');
    write('apps/b/package.json', '{"name":"@x/b"}');
    write('apps/b/src/main.ts');
    ageEverything();
  });
  afterEach(() => removeTempDir(root));

  it('when there is no build yet, then it builds', () => {
    expect(isStale(out, root)).toBe(true);
  });

  it('when the build is newer than every source, then it does not build', () => {
    stampBuild();
    expect(isStale(out, root)).toBe(false);
  });

  it('when a source was edited after the build, then it builds', () => {
    stampBuild(50);
    write('libs/a/src/index.ts', 'changed');
    expect(isStale(out, root)).toBe(true);
  });

  it('when a source was deleted after the build, then it builds', () => {
    write('apps/b/src/gone.ts');
    ageEverything();
    age('apps/b/src/gone.ts', 100);
    stampBuild(50);
    rmSync(path.join(root, 'apps/b/src/gone.ts'));
    expect(isStale(out, root)).toBe(true);
  });

  it('when the lock changed after the build, then it builds', () => {
    stampBuild(50);
    write('package-lock.json', '{"changed":true}');
    expect(isStale(out, root)).toBe(true);
  });

  it('when only a test file changed after the build, then it does not build', () => {
    write('libs/a/src/index.test.ts');
    age('libs/a/src/index.test.ts', 100);
    age('libs/a/src', 100);
    stampBuild(50);
    write('libs/a/src/index.test.ts', 'changed');
    expect(isStale(out, root)).toBe(false);
  });
});
