import { MAX_CONFIG_BYTES, parseRailyardConfig, parseTrunkConfig } from './railyard-config';

describe('parseRailyardConfig', () => {
  it('when the file has checks, reports and required statuses, then each is read in file order', () => {
    const parsed = parseRailyardConfig(
      [
        'ci:',
        '  build: npm run build',
        '  "Unit Tests": npm test -- --ci',
        'reports: ["reports/junit-*.xml"]',
        'merge:',
        '  required_statuses: [build, Unit Tests, build]',
      ].join('\n'),
    );
    expect(parsed).toEqual({
      ok: true,
      config: {
        checks: [
          { name: 'build', command: 'npm run build' },
          { name: 'Unit Tests', command: 'npm test -- --ci' },
        ],
        reports: ['reports/junit-*.xml'],
        requiredStatuses: ['build', 'Unit Tests'],
      },
    });
  });

  it.each([
    ['empty', ''],
    ['only comments', '# nothing yet\n'],
    ['without merge', 'ci:\n  a: "true"\n'],
    ['with an empty list', 'merge:\n  required_statuses: []\n'],
    ['with other tools’ keys', 'version: 0.1\nlint:\n  enabled: [eslint]\nmerge:\n  other: 1\n'],
  ])('when the file is %s, then it loads with no required statuses', (_what, text) => {
    const parsed = parseRailyardConfig(text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.config.requiredStatuses).toBeUndefined();
  });

  it.each([
    ['not YAML', 'ci: [build\n', /not valid YAML/],
    ['a list at the top', '- a\n- b\n', /\(top level\)/],
    ['ci as a list', 'ci: [build]\n', /ci: /],
    ['a command that is not a string', 'ci:\n  build: 3\n', /ci\.build/],
    ['an empty command', 'ci:\n  build: "  "\n', /must not be empty/],
    ['a check name with a newline', 'ci:\n  "a\\nb": "true"\n', /check name/],
    ['a check defined twice', 'ci:\n  a: "true"\n  a: "false"\n', /unique/],
    ['required statuses as a string', 'merge:\n  required_statuses: build\n', /merge\.required_statuses/],
    ['a report pattern leaving the checkout', 'reports: ["../secrets/*.xml"]\n', /relative path inside the checkout/],
    ['an absolute report pattern', 'reports: ["/etc/*.xml"]\n', /relative path inside the checkout/],
  ])('when the file has %s, then it is refused with a message naming the problem', (_what, text, message) => {
    const parsed = parseRailyardConfig(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toMatch(message);
      expect(parsed.message.startsWith('.railyard.yml')).toBe(true);
    }
  });

  it('when the file is over the size limit, then it is refused before parsing', () => {
    const parsed = parseRailyardConfig(`# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    expect(parsed).toEqual({ ok: false, message: expect.stringMatching(/larger than/) });
  });

  it('when aliases multiply a small file into a huge one, then it is refused', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 60; i++) lines.push(`b${i}: &b${i} [*${i === 0 ? 'a' : `b${i - 1}`}, *${i === 0 ? 'a' : `b${i - 1}`}]`);
    expect(parseRailyardConfig(lines.join('\n')).ok).toBe(false);
  });
});

describe('parseTrunkConfig', () => {
  it('when trunk.yaml lists required statuses among its other sections, then only those are read', () => {
    const text =
      'version: 0.1\ncli:\n  version: 1.22.0\nlint:\n  enabled: [eslint@9]\nmerge:\n  required_statuses:\n    - Unit Tests\n    - Integration Tests\n';
    expect(parseTrunkConfig(text)).toEqual({ ok: true, config: { requiredStatuses: ['Unit Tests', 'Integration Tests'] } });
  });

  it('when trunk.yaml has no merge section, then it names no statuses', () => {
    expect(parseTrunkConfig('version: 0.1\n')).toEqual({ ok: true, config: {} });
  });

  it('when trunk.yaml is broken, then the message names that file', () => {
    expect(parseTrunkConfig('merge: [\n')).toEqual({
      ok: false,
      message: expect.stringMatching(/^\.trunk\/trunk\.yaml is not valid YAML/),
    });
  });
});
