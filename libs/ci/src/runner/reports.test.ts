import { globToRegExp } from './reports';

describe('globToRegExp', () => {
  it.each([
    ['reports/junit*.xml', 'reports/junit-unit.xml', true],
    ['reports/junit*.xml', 'reports/sub/junit-unit.xml', false],
    ['reports/junit*.xml', 'reportsXjunit.xml', false],
    ['**/junit.xml', 'junit.xml', true],
    ['**/junit.xml', 'a/b/junit.xml', true],
    ['out/**', 'out/a/b.xml', true],
    ['out/**/*.xml', 'out/x.xml', true],
    ['out/**/*.xml', 'out/a/b/x.xml', true],
    ['test-?.xml', 'test-1.xml', true],
    ['test-?.xml', 'test-12.xml', false],
    ['a+b(1).xml', 'a+b(1).xml', true],
  ])('when %s is matched against %s, then the answer is %s', (pattern, file, expected) => {
    expect(globToRegExp(pattern).test(file)).toBe(expected);
  });
});
