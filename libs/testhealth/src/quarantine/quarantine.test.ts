import { allFailuresQuarantined, isQuarantined, quarantineSettingOf } from './quarantine';

describe('isQuarantined', () => {
  const flaky = { status: 'FLAKY', corroborated: true } as const;
  it.each([
    ['FLAKY', true, undefined, true],
    ['FLAKY', false, undefined, false],
    ['BROKEN', false, undefined, false],
    ['HEALTHY', false, undefined, false],
    ['HEALTHY', false, 'always', true],
    ['BROKEN', false, 'always', true],
    ['FLAKY', true, 'never', false],
  ] as const)(
    'when the status is %s (corroborated: %s) and the override is %s, then quarantined is %s',
    (status, corroborated, override, expected) => {
      expect(isQuarantined({ status, corroborated }, override)).toBe(expected);
    },
  );

  it('when auto-quarantine is off, then only an always override quarantines', () => {
    expect(isQuarantined(flaky, undefined, { autoQuarantine: false })).toBe(false);
    expect(isQuarantined({ status: 'HEALTHY', corroborated: false }, 'always', { autoQuarantine: false })).toBe(true);
  });

  it('when quarantining is disabled for the repository, then nothing is quarantined', () => {
    expect(isQuarantined(flaky, 'always', { enabled: false })).toBe(false);
  });

  it('when reporting the setting, then always maps to ALWAYS_QUARANTINE and the rest to AUTO_QUARANTINE', () => {
    expect(quarantineSettingOf('always')).toBe('ALWAYS_QUARANTINE');
    expect(quarantineSettingOf(undefined)).toBe('AUTO_QUARANTINE');
  });
});

describe('allFailuresQuarantined', () => {
  const quarantined = new Set(['t1', 't2']);
  const lookup = (id: string) => quarantined.has(id);

  it('when every failing test is quarantined, then the job may ignore its failures', () => {
    expect(allFailuresQuarantined(['t1', 't2', 't1'], lookup)).toEqual({
      allQuarantined: true,
      quarantined: ['t1', 't2'],
      notQuarantined: [],
    });
  });

  it('when one failing test is not quarantined, then the job stays failed and names it', () => {
    expect(allFailuresQuarantined(['t1', 't3'], lookup)).toEqual({ allQuarantined: false, quarantined: ['t1'], notQuarantined: ['t3'] });
  });

  it('when there are no failing tests, then the job may not ignore its failure', () => {
    expect(allFailuresQuarantined([], lookup).allQuarantined).toBe(false);
  });

  it('when the lookup does not know a test or throws, then the test counts as not quarantined', () => {
    // given
    const unknown = () => undefined;
    const broken = (): boolean => {
      throw new Error('store unavailable');
    };
    // when / then
    expect(allFailuresQuarantined(['t1'], unknown).allQuarantined).toBe(false);
    expect(allFailuresQuarantined(['t1'], broken)).toEqual({ allQuarantined: false, quarantined: [], notQuarantined: ['t1'] });
  });
});
