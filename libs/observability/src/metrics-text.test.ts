import { histogramOf, renderFamilies } from './metrics-text';

describe('Prometheus text rendering', () => {
  it('when a gauge has labels with quotes, backslashes and newlines, then they are escaped as the format requires', () => {
    const text = renderFamilies([
      { name: 'g', help: 'a\\b\nc', type: 'gauge', samples: [{ labels: { branch: 'we"ird\\x\ny' }, value: 2 }] },
    ]);
    expect(text).toBe('# HELP g a\\\\b\\nc\n# TYPE g gauge\ng{branch="we\\"ird\\\\x\\ny"} 2\n');
  });

  it('when a histogram is rendered, then buckets are cumulative, le comes last, and +Inf, _sum and _count follow', () => {
    const h = histogramOf({ repo: 'a/b' }, [60, 300], [30, 60, 61, 1000]);
    expect(h).toEqual({ labels: { repo: 'a/b' }, cumulative: [2, 3], sum: 1151, count: 4 });
    expect(renderFamilies([{ name: 'h', help: 'x', type: 'histogram', bounds: [60, 300], samples: [h] }]).split('\n')).toEqual([
      '# HELP h x',
      '# TYPE h histogram',
      'h_bucket{repo="a/b",le="60"} 2',
      'h_bucket{repo="a/b",le="300"} 3',
      'h_bucket{repo="a/b",le="+Inf"} 4',
      'h_sum{repo="a/b"} 1151',
      'h_count{repo="a/b"} 4',
      '',
    ]);
  });

  it('when a sample has no labels or a fractional value, then the braces are left out and the value is a plain float', () => {
    expect(renderFamilies([{ name: 'c', help: 'x', type: 'counter', samples: [{ labels: {}, value: 0.25 }] }])).toBe(
      '# HELP c x\n# TYPE c counter\nc 0.25\n',
    );
  });
});
