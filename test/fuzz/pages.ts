// The requests of the app's pages, forms and JSON endpoints outside the /v1 registry.
import fc from 'fast-check';
import type { z } from 'zod';
import { type Arbitraries, jsonSchemaOf } from './arbitraries';
import { type Body, request } from './bodies';
import { segment } from './encodings';
import { hostileString } from './hostile';
import { type Segment, segments } from './paths';
import type { FuzzRequest } from './send';

/** A page, form or JSON endpoint of the app (not in the /v1 registry), described for the fuzzer. */
export interface PageRoute {
  method: string;
  /** Router syntax, e.g. `/app/keys/:id/revoke`. */
  path: string;
  params?: Record<string, fc.Arbitrary<Segment>>;
  /** Which cookie the page reads: the app session (`spare`: the session the fuzzer may sign out), or the signer's. */
  cookie?: 'app' | 'spare' | 'sign';
  form?: { fields: Record<string, fc.Arbitrary<string>>; files?: string[]; limit?: number };
  json?: z.ZodType;
  query?: Record<string, fc.Arbitrary<string>>;
}

export function pageRequests(arbs: Arbitraries, route: PageRoute): fc.Arbitrary<FuzzRequest> {
  const { m } = arbs;
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const csrf = route.cookie === 'spare' ? m.app.spare.csrf : m.app.main.csrf;
  const signName = `svc_sign_${m.signer.id}`;
  const cookie: fc.Arbitrary<string | undefined> =
    route.cookie === 'sign'
      ? fc.oneof(
          { weight: 6, arbitrary: fc.constant(m.signer.cookie) },
          { weight: 2, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              `${signName}=x`,
              `${signName}=${m.app.main.cookie.split('=')[1]}`,
              `svc_sign_${m.signerIds[0]}=${m.signer.cookie.split('=')[1]}`,
              m.app.main.cookie,
              `${m.signer.cookie}; ${m.signer.cookie}x`,
            ),
          },
          { weight: 1, arbitrary: hostileString.map((text) => `${signName}=${text}`) },
        )
      : route.cookie === 'spare'
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constant(m.app.spare.cookie) },
            { weight: 1, arbitrary: arbs.appCookie().filter((value) => value !== m.app.main.cookie) },
          )
        : arbs.appCookie();
  const query = route.query
    ? fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .record(
              Object.fromEntries(
                Object.entries(route.query).map(([name, arb]) => [
                  name,
                  fc.oneof(
                    arb,
                    hostileString.map((text) => segment(text, false)),
                  ),
                ]),
              ),
              { requiredKeys: [] },
            )
            .map((values) =>
              Object.entries(values)
                .map(([name, value]) => `${name}=${value}`)
                .join('&'),
            )
            .map((text) => (text ? `?${text}` : '')),
        },
        { weight: 1, arbitrary: arbs.query(undefined) },
      )
    : fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: arbs.query(undefined) });
  const body: fc.Arbitrary<Body> = route.form
    ? arbs.formBody(arbs.formFields(route.form.fields, csrf), route.form.files ?? [], route.form.limit ?? 64 * 1024)
    : route.json
      ? arbs.jsonBody(jsonSchemaOf(route.json))
      : fc.oneof({ weight: 6, arbitrary: fc.constant<Body>({}) }, { weight: 1, arbitrary: arbs.jsonBody(undefined) });
  return fc
    .record({
      method: arbs.method(route.method),
      params: fc.tuple(...names.map((name) => route.params?.[name] ?? segments(['x']))),
      query,
      cookie,
      origin: arbs.origin,
      extra: fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: arbs.extraHeaders() }),
      authorization: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arbs.authorization() }),
      body,
    })
    .map(({ method, params, query: search, cookie: sent, origin, extra, authorization, body: payload }) => {
      let path = route.path;
      names.forEach((name, index) => {
        path = path.replace(`:${name}`, () => segment(params[index].text, params[index].raw));
      });
      const headers: Record<string, string> = { ...extra };
      if (sent !== undefined) headers.cookie = sent;
      if (origin !== undefined) headers.origin = origin;
      if (authorization !== undefined) headers.authorization = authorization;
      return request(`${route.method} ${route.path}`, method, `${path}${search}`, headers, payload);
    });
}
