import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { html, joinHtml } from './html';

const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(2)' x='&`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;alert(2)&#39; x=&#39;&amp;';

describe('html', () => {
  it('escapes interpolated text', () => {
    assert.equal(html`<p>${HOSTILE}</p>`.toString(), `<p>${ESCAPED}</p>`);
  });

  it('escapes attribute values the same way, so a quote cannot end the attribute', () => {
    const rendered = html`<a title="${HOSTILE}" data-x='${HOSTILE}'>x</a>`.toString();
    assert.equal(rendered, `<a title="${ESCAPED}" data-x='${ESCAPED}'>x</a>`);
    assert.ok(!rendered.includes('onmouseover="'));
    assert.ok(!rendered.includes('<script>'));
  });

  it('keeps the template text as written', () => {
    assert.equal(html`<p class="a">“quoted” & <b>bold</b></p>`.toString(), '<p class="a">“quoted” & <b>bold</b></p>');
  });

  it('nests html results without escaping them again', () => {
    const inner = html`<b>${'a&b'}</b>`;
    assert.equal(html`<p>${inner}</p>`.toString(), '<p><b>a&amp;b</b></p>');
    assert.equal(html`<div>${html`<p>${html`<i>${'<'}</i>`}</p>`}</div>`.toString(), '<div><p><i>&lt;</i></p></div>');
  });

  it('joins arrays, escaping the strings in them and nested arrays alike', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    assert.equal(html`<ul>${items}</ul>`.toString(), '<ul><li>&lt;a&gt;</li><li>b</li></ul>');
    assert.equal(html`${['<', html`<br>`, ['>', 1]]}`.toString(), '&lt;<br>&gt;1');
    assert.equal(html`<ul>${[]}</ul>`.toString(), '<ul></ul>');
  });

  it('renders nothing for null, undefined and false; numbers and 0 as text', () => {
    assert.equal(html`[${null}|${undefined}|${false}]`.toString(), '[||]');
    assert.equal(html`[${0}|${42}|${''}]`.toString(), '[0|42|]');
    const disabled = false;
    assert.equal(html`<button${disabled && html` disabled`}>`.toString(), '<button>');
  });

  it('treats a string that looks like markup as text: only html results are markup', () => {
    const pretend = { toString: () => '<b>' } as unknown as string;
    assert.equal(html`${pretend}`.toString(), '&lt;b&gt;');
  });

  it('refuses an unquoted attribute value, where a space would end the value', () => {
    assert.throws(() => html`<input value=${'x onfocus=alert(1)'}>`, /quote the attribute value/);
    assert.throws(
      () => html`<input name="a"
  value=${'x'}>`,
      /quote the attribute value/,
    );
    assert.doesNotThrow(() => html`<a href="/keys?key=${'k'}&v=${'1'}">x = ${'y'}</a>`);
  });
});

describe('joinHtml', () => {
  it('puts the separator between values, escaping text', () => {
    assert.equal(joinHtml(['a', '<b>', html`<i>c</i>`], ', ').toString(), 'a, &lt;b&gt;, <i>c</i>');
    assert.equal(joinHtml(['a', 'b'], html`<br>`).toString(), 'a<br>b');
    assert.equal(joinHtml([], ', ').toString(), '');
  });
});
