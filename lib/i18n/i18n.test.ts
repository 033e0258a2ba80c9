import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntlMessageFormat } from 'intl-messageformat';
import { tHtml } from '../../api/app/messages';
import { html } from '../../api/http/html';
import { outsideCatalogue, pageOutsideCatalogue } from '../../test/catalogue';
import { formatDay, formatMoment, hasMessage, messageKeys, messagesFor, PSEUDO_LOCALE, t, withLocale } from '.';

describe('the message catalogue', () => {
  it('formats a message by key with its parameters, in English unless a locale is set', () => {
    assert.equal(t('common.page.title', { title: 'Keys' }), 'Keys · Agents');
    assert.equal(formatMoment(new Date('2026-03-04T05:06:59Z')), '2026-03-04 05:06 UTC');
    assert.equal(formatDay(new Date('2026-12-31T23:59:59Z')), '2026-12-31');
    assert.ok(hasMessage('common.brand'));
    assert.ok(!hasMessage('common.no-such-key'));
  });

  it('wraps every message in ⟦ ⟧ in the pseudo-locale, across awaits', async () => {
    const out = await withLocale(PSEUDO_LOCALE, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return t('common.brand');
    });
    assert.equal(out, '⟦Agents⟧');
    assert.equal(t('common.brand'), 'Agents');
  });

  it('places markup parameters where the message names them and escapes the rest', () => {
    const link = html`<a href="/x">${'a & b'}</a>`;
    assert.equal(tHtml('common.page.title', { title: link }).toString(), '<a href="/x">a &amp; b</a> · Agents');
  });

  it('every message of the English catalogue parses (ICU MessageFormat)', () => {
    assert.ok(messageKeys().length > 0);
    for (const [key, text] of Object.entries(messagesFor('' as never))) {
      assert.doesNotThrow(() => new IntlMessageFormat(text, 'en', undefined, { ignoreTag: true }), key);
    }
  });
});

describe('the check of pages against the catalogue', () => {
  it('finds text outside ⟦ ⟧ and ignores data, ids, numbers and nesting', () => {
    assert.deepEqual(outsideCatalogue('⟦Sent to ⟦you⟧⟧  Ann  doc_abc1234  42', ['Ann']), []);
    assert.deepEqual(outsideCatalogue('⟦Sent⟧  Please sign', []), ['Please sign']);
  });

  it('takes a link whole, though a short datum ("L2") happens to be inside its random token', () => {
    const mail =
      '⟦Or sign in with this link:⟧\nhttp://localhost:0/app/login/link?token=otc_ARm0L2p1zw3Wrct3wPEw.xk4O9spijWNhYe2wzYCI0kqzPdedA31bckXWhC3lny4\n';
    assert.deepEqual(outsideCatalogue(mail, ['L1', 'L2']), []);
    assert.deepEqual(outsideCatalogue('⟦Level⟧ L2 ⟦and⟧  words', ['L1', 'L2']), ['words']);
  });

  it('reads a page’s text and the attributes people read, not its scripts or styles', () => {
    const page =
      '<!doctype html><html><head><style>p{}</style><meta name="svc-messages" content="{&quot;a&quot;:1}"></head>' +
      '<body><p title="⟦Hint⟧">⟦Hello⟧</p><script>var x = "text";</script><input type="submit" value="Go"><img alt="logo"></body></html>';
    assert.deepEqual(pageOutsideCatalogue(page), ['logo', 'Go']);
  });
});
