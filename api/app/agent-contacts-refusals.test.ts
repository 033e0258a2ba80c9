import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptToken } from '../../test/contacts';
import { createAccount } from '../../test/factories';
import {
  appPath,
  contactsPath,
  invite,
  navOf,
  notice,
  sideOf,
  signedIn,
  stack,
  statusOf,
  useAgentContactsStack,
} from '../../test/fixtures/agent-contacts';

useAgentContactsStack();

describe('form tokens', () => {
  it('a post without the session’s form token is refused with 400 and changes nothing', async () => {
    const inviter = await createAccount(stack.deps.db);
    const me = await createAccount(stack.deps.db);
    const invited = await invite(inviter, me.email);
    const mine = (await sideOf(me, invited.pair_id)).contact_id;
    const app = await signedIn(me);
    const posts: Array<[string, Record<string, string>]> = [
      ['/accept', { token: acceptToken(invited.accept_url) }],
      [`/${mine}/accept`, {}],
      [`/${mine}/revoke`, {}],
    ];
    for (const [suffix, fields] of posts) {
      for (const token of [undefined, 'forged']) {
        const response = await app.post(contactsPath(suffix), token ? { ...fields, _csrf: token } : fields);
        assert.equal(response.status, 400, `${suffix} ${token}`);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await response.text(), /This form has expired or did not come from this app/, suffix);
      }
    }
    assert.equal(await statusOf(me, mine), 'invited');
    assert.equal(await statusOf(inviter, invited.contact_id), 'invited');
  });
});

describe('the agent_contacts flag', () => {
  it('off: no navigation entry, and the page and its forms answer 403 feature_disabled', async () => {
    const me = await createAccount(stack.deps.db);
    const inviter = await createAccount(stack.deps.db);
    const invited = await invite(inviter, me.email);
    const app = await signedIn(me);
    assert.match(navOf(await (await app.get(`${appPath()}/`)).text()), />Agent contacts<\/a>/, 'on: the entry is there');

    const off = await stack.withEnv({ SVC_FF_AGENT_CONTACTS: 'off' });
    try {
      const get = (suffix: string) => fetch(`${off.url}${suffix}`, { headers: { cookie: app.cookie }, redirect: 'manual' });
      for (const suffix of ['/', '/keys', '/mandates']) {
        const html = await (await get(`${appPath()}${suffix}`)).text();
        assert.notEqual(navOf(html), '', suffix);
        assert.doesNotMatch(navOf(html), /Agent contacts|agent-contacts/, suffix);
      }
      for (const suffix of ['', `?accept=${encodeURIComponent(acceptToken(invited.accept_url))}`]) {
        const response = await get(contactsPath(suffix));
        assert.equal(response.status, 403, suffix);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        const html = await response.text();
        assert.equal(notice(html), 'The feature agent_contacts is disabled for this deployment.');
        assert.doesNotMatch(navOf(html), /Agent contacts/, 'nor on its own page');
        assert.doesNotMatch(html, /data-testid="invitation"/);
      }
      const csrf = /name="_csrf" value="([^"]*)"/.exec(await (await get(`${appPath()}/`)).text())![1];
      const mine = (await sideOf(me, invited.pair_id)).contact_id;
      for (const suffix of ['/accept', `/${mine}/accept`, `/${mine}/revoke`]) {
        const response = await fetch(`${off.url}${contactsPath(suffix)}`, {
          method: 'POST',
          headers: { cookie: app.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: csrf, token: acceptToken(invited.accept_url) }).toString(),
          redirect: 'manual',
        });
        assert.equal(response.status, 403, suffix);
        assert.match(notice(await response.text()), /agent_contacts is disabled/);
      }
      assert.equal(await statusOf(me, mine), 'invited');
    } finally {
      await off.close();
    }
  });
});
