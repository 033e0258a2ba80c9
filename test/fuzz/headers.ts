// The headers of a request beside its body: method, Origin, Authorization, the app's cookie and the rest.
import fc from 'fast-check';
import { hostileString } from './hostile';
import type { FuzzMaterial } from './material';

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'FOO', 'TRACE', 'get'];

/** Mostly the route's own method, sometimes another, an unknown one or a lower-cased one. */
export function requestMethod(own: string): fc.Arbitrary<string> {
  return fc.oneof({ weight: 7, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) });
}

/** The Origin header: mostly none, the app's own, another site's or garbage. */
export function originHeader(origin: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constant(origin) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'https://evil.example',
        'null',
        'http://localhost',
        `${origin}.evil.example`,
        origin.replace('127.0.0.1', 'localhost'),
      ),
    },
    { weight: 1, arbitrary: hostileString },
  );
}

/** The Authorization header: mostly the Business key, sometimes another tenant's, a free plan's, a revoked one or garbage. */
export function authorization(keys: FuzzMaterial['keys']): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${keys.business}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${keys.l1}`) },
    { weight: 1, arbitrary: fc.constantFrom(`Bearer ${keys.free}`, `Bearer ${keys.revoked}`) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Bearer',
        'Bearer ',
        `bearer ${keys.business}`,
        `Bearer  ${keys.business}  `,
        `Bearer ${keys.business}x`,
        `Bearer ${keys.business.slice(0, -1)}`,
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        `Bearer ${keys.business}, Bearer ${keys.l1}`,
      ),
    },
    { weight: 1, arbitrary: hostileString.map((text) => `Bearer ${text}`) },
  );
}

/** The app's session cookie: the signed-in principal's (mostly), the spare session's, none, garbage or tampered. */
export function appCookie(m: FuzzMaterial): fc.Arbitrary<string | undefined> {
  const { main, spare } = m.app;
  const value = main.cookie.slice('svc_app='.length);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(main.cookie) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        spare.cookie,
        `svc_app=${value.slice(0, -2)}AA`,
        `svc_app=${value}; svc_app=x`,
        `svc_app=x; ${main.cookie}`,
        'svc_app=',
        'svc_app',
        '=;;=',
        `svc_app=${m.signer.cookie.split('=')[1]}`,
      ),
    },
    { weight: 1, arbitrary: hostileString.map((text) => `svc_app=${text}`) },
  );
}

/** Headers every request may carry beside its own: Origin, an Idempotency-Key, Accept, proxies' headers, a Host. */
export function extraHeaders(origin: fc.Arbitrary<string | undefined>): fc.Arbitrary<Record<string, string>> {
  return fc
    .record(
      {
        origin,
        'idempotency-key': hostileString,
        accept: fc.constantFrom('*/*', 'text/html', 'application/json', 'image/png', ''),
        'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''),
        'x-forwarded-proto': fc.constantFrom('https', 'gopher', ''),
        'user-agent': hostileString,
        host: fc.constantFrom('evil.example', '', 'localhost:1', '[::1'),
      },
      { requiredKeys: [] },
    )
    .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>);
}
