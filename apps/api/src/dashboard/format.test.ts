import { prose, shortId } from './format';

const RUN = '27b30b74-b3db-4243-9d06-a57500af1b57';

describe('dashboard text', () => {
  it('when a sentence names checks in backticks, then they become code elements and no backtick is left', () => {
    expect(prose('failed because checks `test`, `lint` failed').value).toBe(
      'failed because checks <code>test</code>, <code>lint</code> failed',
    );
  });

  it('when a sentence says a URL twice, then it is shown once, as a link', () => {
    const out = prose('check failed: https://ci.example/log/1 (https://ci.example/log/1)').value;
    expect(out).toBe('check failed: <a href="https://ci.example/log/1" title="https://ci.example/log/1">https://ci.example/log/1</a>');
  });

  it('when a URL holds a run id, then its text shortens the id and the link keeps it whole', () => {
    expect(prose(`log: https://ci.example/logs/${RUN}/test`).value).toBe(
      `log: <a href="https://ci.example/logs/${RUN}/test" title="https://ci.example/logs/${RUN}/test">https://ci.example/logs/27b30b74…/test</a>`,
    );
  });

  it('when a sentence holds a run id, then it shows its first characters with the full id on hover', () => {
    expect(prose(`merged after run ${RUN} passed`).value).toBe(`merged after run ${shortId(RUN).value} passed`);
    expect(shortId(RUN).value).toBe(`<code class="id" title="${RUN}" data-id="${RUN}">27b30b74</code>`);
  });

  it('when a sentence holds markup, then it is escaped', () => {
    expect(prose('a <b> `<i>`').value).toBe('a &lt;b&gt; <code>&lt;i&gt;</code>');
  });
});
