import fc from 'fast-check';
import {
  DEFAULT_PRIORITY,
  isUrgent,
  MAX_PRIORITY_VALUE,
  PRIORITY_NAMES,
  PRIORITY_VALUES,
  priorityNameOf,
  resolvePriority,
} from './priority';
import { PRIORITY_NAME_CASES } from './testing/fixtures';

describe('priority', () => {
  it('when the named levels are read, then urgent=0, high=10, medium=100, low=200; medium is the default; 255 the lowest', () => {
    expect(PRIORITY_VALUES).toStrictEqual({ urgent: 0, high: 10, medium: 100, low: 200 });
    expect(DEFAULT_PRIORITY).toBe('medium');
    expect(MAX_PRIORITY_VALUE).toBe(255);
  });

  it.each(PRIORITY_NAME_CASES)('when the value is %d, then the name is %s', (value, name) => {
    expect(priorityNameOf(value)).toBe(name);
  });

  it('when a value is 0, then it is urgent and named urgent; any other value is neither', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_PRIORITY_VALUE }), (value) => {
        expect(isUrgent(value)).toBe(value === 0);
        expect(priorityNameOf(value) === 'urgent').toBe(isUrgent(value));
      }),
    );
  });

  it.each(PRIORITY_NAMES)('when %s is resolved, then its value maps back to the same name', (name) => {
    const p = resolvePriority(name);
    expect(p).toStrictEqual({ value: PRIORITY_VALUES[name], name });
    expect(priorityNameOf(p.value)).toBe(name);
  });

  it('when a number is resolved, then the value is kept and the name is the level it falls under', () => {
    expect(resolvePriority(50)).toStrictEqual({ value: 50, name: 'medium' });
    expect(resolvePriority(0)).toStrictEqual({ value: 0, name: 'urgent' });
  });

  it('when values grow, then names never get more urgent (monotone)', () => {
    const rank = (v: number) => PRIORITY_NAMES.indexOf(priorityNameOf(v));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_PRIORITY_VALUE }), fc.integer({ min: 0, max: MAX_PRIORITY_VALUE }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        return rank(lo) <= rank(hi);
      }),
    );
  });
});
