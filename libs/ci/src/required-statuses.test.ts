import { requiredStatusesFrom } from './required-statuses';

const fine = (requiredStatuses?: string[]) => ({
  ok: true as const,
  config: { checks: [], reports: [], ...(requiredStatuses ? { requiredStatuses } : {}) },
});
const broken = (message: string) => ({ ok: false as const, message });

describe('requiredStatusesFrom', () => {
  it('when the queue has its own list, then it wins over the files, even broken ones', () => {
    expect(requiredStatusesFrom(['a', 'b', 'a'], { railyard: broken('x'), trunk: fine(['c']) })).toEqual({
      statuses: ['a', 'b'],
      source: 'merge_instance',
      localChecks: [],
    });
  });

  it('when the queue has none and .railyard.yml lists some, then those come from trunk_config', () => {
    expect(requiredStatusesFrom([], { railyard: fine(['build']), trunk: fine(['other']) })).toEqual({
      statuses: ['build'],
      source: 'trunk_config',
      localChecks: [],
    });
  });

  it('when .railyard.yml names none, then .trunk/trunk.yaml is read next', () => {
    expect(requiredStatusesFrom([], { railyard: fine(), trunk: { ok: true, config: { requiredStatuses: ['Unit Tests'] } } })).toEqual({
      statuses: ['Unit Tests'],
      source: 'trunk_config',
      localChecks: [],
    });
    expect(requiredStatusesFrom([], { railyard: null, trunk: { ok: true, config: { requiredStatuses: ['Unit Tests'] } } })).toMatchObject({
      source: 'trunk_config',
    });
  });

  it('when a file that would be read is broken, then the run cannot start: config parsing failure', () => {
    expect(requiredStatusesFrom([], { railyard: broken('.railyard.yml is not valid YAML'), trunk: fine(['x']) })).toEqual({
      error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE',
      message: '.railyard.yml is not valid YAML',
    });
    expect(requiredStatusesFrom([], { railyard: fine(), trunk: broken('trunk broken') })).toMatchObject({
      error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE',
    });
  });

  it('when no source names any, then the run cannot start: no required statuses', () => {
    expect(requiredStatusesFrom([], { railyard: null, trunk: null })).toEqual({
      error: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
      message: expect.stringMatching(/^No required statuses/),
    });
    expect(requiredStatusesFrom([], { railyard: fine(), trunk: { ok: true, config: {} } })).toMatchObject({
      error: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
    });
  });
});
