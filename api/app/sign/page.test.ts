import assert from 'node:assert/strict';
import { it } from 'node:test';
import { renderSignPage, sentBy } from './page';

it('the sign page names who sent the document, escaped, with the tenant when it has a name', () => {
  const page = renderSignPage({
    token: 't0k',
    appPath: '/app',
    documentName: 'NDA',
    signerName: 'Rey',
    senderName: 'Ada <b>Lovelace</b>',
    tenantName: 'Acme & "Sons"',
  });
  assert.match(page, /<p class="from" data-testid="sender">Sent by Ada &lt;b&gt;Lovelace&lt;\/b&gt; \(Acme &amp; &quot;Sons&quot;\)<\/p>/);
  assert.equal(page.includes('<b>'), false);
  assert.equal(sentBy('Ada Lovelace', null), 'Sent by Ada Lovelace');
  assert.equal(sentBy('Ada Lovelace', 'Acme Ltd'), 'Sent by Ada Lovelace (Acme Ltd)');
});

it('before the code step the page is a landing card, and a signer already confirmed opens without it', () => {
  assert.match(renderSignPage({ token: 't', appPath: '/app', senderName: 'A' }), /<main id="sign" class="landing"/);
  assert.match(renderSignPage({ token: 't', appPath: '/app', senderName: 'A', verified: true }), /<main id="sign" class=""/);
  // Pinch zoom stays allowed on a phone.
  const viewport = /<meta name="viewport" content="([^"]+)"/.exec(renderSignPage({ token: 't', appPath: '/app' }))?.[1] ?? '';
  assert.match(viewport, /width=device-width/);
  assert.doesNotMatch(viewport, /user-scalable=no|maximum-scale=1\b/);
});
