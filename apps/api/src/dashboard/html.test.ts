import { html, raw } from './html';

describe('dashboard templates', () => {
  it('when a value holds markup, then it is escaped; nested templates and arrays are kept as markup', () => {
    const title = '<script>alert("x")</script> & co';
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co';
    const items = [html`<b>${1}</b>`, 'a<b'];
    expect(html`<p title="${title}">${title}</p>`.value).toBe(`<p title="${escaped}">${escaped}</p>`);
    expect(html`<div>${items}</div>`.value).toBe('<div><b>1</b>a&lt;b</div>');
  });

  it('when a value is null, undefined or false, then it renders nothing; raw markup is passed through', () => {
    expect(html`${null}${undefined}${false}${0}${raw('<i></i>')}`.value).toBe('0<i></i>');
  });
});
