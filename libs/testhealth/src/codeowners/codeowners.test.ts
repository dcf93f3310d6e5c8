import { parseCodeowners } from './codeowners';

describe('parseCodeowners', () => {
  const file = [
    '# Default owners for everything',
    '*       @acme/everyone',
    '',
    '*.js    @js-owner  # inline comment',
    '*.go    docs@example.com',
    '**/logs @acme/loggers',
    '/build/logs/ @doctocat',
    'docs/*  docs@example.com',
    'apps/   @octocat',
    '/scripts/ @doctocat @octocat',
    '/apps/github',
    'src/**/generated/*.ts @acme/codegen',
    'path\\ with\\ spaces/ @spacey',
  ].join('\n');
  const co = parseCodeowners(file);

  it.each([
    ['README.md', ['@acme/everyone']],
    ['src/app.js', ['@js-owner']],
    ['cmd/main.go', ['docs@example.com']],
    ['build/logs/out.txt', ['@doctocat']],
    ['build/logs/nested/out.txt', ['@doctocat']],
    ['docs/getting-started.md', ['docs@example.com']],
    ['docs/build-app/troubleshooting.md', ['@acme/everyone']],
    ['apps/web/index.ts', ['@octocat']],
    ['services/apps/x.ts', ['@octocat']],
    ['scripts/deploy.sh', ['@doctocat', '@octocat']],
    ['deeply/nested/logs/app.log', ['@acme/loggers']],
    ['apps/github/hooks.ts', []],
    ['src/a/b/generated/api.ts', ['@acme/codegen']],
    ['src/generated/api.ts', ['@acme/codegen']],
    ['path with spaces/file.txt', ['@spacey']],
  ])('when the path is %s, then the last matching rule gives %j', (path, owners) => {
    expect(co.ownersOf(path)).toEqual(owners);
  });

  it('when a path has a leading "./", a leading "/" or backslashes, then it is normalized before matching', () => {
    expect(co.ownersOf('./scripts/deploy.sh')).toEqual(['@doctocat', '@octocat']);
    expect(co.ownersOf('/scripts/deploy.sh')).toEqual(['@doctocat', '@octocat']);
    expect(co.ownersOf('scripts\\deploy.sh')).toEqual(['@doctocat', '@octocat']);
  });

  it('when a later rule matches, then it wins over an earlier, more specific one', () => {
    // given
    const later = parseCodeowners('/src/api/ @api-team\n*.ts @ts-team\n');
    // when / then
    expect(later.ownersOf('src/api/handler.ts')).toEqual(['@ts-team']);
    expect(later.ownersOf('src/api/handler.py')).toEqual(['@api-team']);
  });

  it('when nothing matches or the path is empty, then there are no owners', () => {
    const narrow = parseCodeowners('/docs/ @docs\n');
    expect(narrow.ownersOf('src/x.ts')).toEqual([]);
    expect(narrow.ownersOf('')).toEqual([]);
  });

  it('when patterns use `?`, then it matches one character within a segment', () => {
    const co2 = parseCodeowners('file?.txt @q\n');
    expect(co2.ownersOf('dir/file1.txt')).toEqual(['@q']);
    expect(co2.ownersOf('file10.txt')).toEqual([]);
  });

  it('when matching, then case matters', () => {
    expect(parseCodeowners('/Docs/ @d\n').ownersOf('docs/a.md')).toEqual([]);
  });

  it('when a line uses negation, a character range or an invalid owner, then it is skipped and reported', () => {
    // given
    const text = '* @all\n!secret.txt @nobody\nsrc/*.[ch] @c-team\nlib/ not-an-owner\n';
    // when
    const bad = parseCodeowners(text);
    // then
    expect(bad.rules.map((r) => r.line)).toEqual([1]);
    expect(bad.problems.map((p) => p.line)).toEqual([2, 3, 4]);
    expect(bad.ownersOf('src/x.c')).toEqual(['@all']);
  });

  // The sizes are bounded (a report's file field is at most 1,000 characters), not timed: a matcher that
  // walks the path once does about pattern × path steps here, while the backtracking regular expression
  // this replaced tries every way of splitting 1,000 characters among 24 stars and never finishes.
  it('when a pattern would make a backtracking matcher explode, then a path of the longest accepted size is still answered', () => {
    const stars = parseCodeowners(`* @all\n${'*a'.repeat(24)}*b @stars\n`);
    expect(stars.ownersOf('a'.repeat(1_000))).toEqual(['@all']);
    expect(stars.ownersOf(`${'a'.repeat(999)}b`)).toEqual(['@stars']);
    const globstars = parseCodeowners(`${'**/a/'.repeat(12)}**/c @deep\n`);
    expect(globstars.ownersOf(Array.from({ length: 500 }, () => 'a').join('/'))).toEqual([]);
    expect(globstars.ownersOf(`${'a/'.repeat(20)}c`)).toEqual(['@deep']);
  });

  it('when the file has CRLF line endings and a byte order mark, then it parses the same', () => {
    expect(parseCodeowners('\uFEFF*.md @writers\r\n').ownersOf('a/b.md')).toEqual(['@writers']);
  });
});
