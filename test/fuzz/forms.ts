// The bodies of the app's forms: their fields (with the form token or without), url-encoded or multipart.
import fc from 'fast-check';
import type { Body } from './bodies';
import { type FormPart, MULTIPART_FLAWS, multipartBody } from './encodings';
import { hostileString } from './hostile';

/** A form's fields: the route's own names with plausible or hostile values, strangers, and the form token (right, wrong or absent). */
export function formFields(
  fields: Record<string, fc.Arbitrary<string>>,
  csrf: string,
  spareCsrf: string,
): fc.Arbitrary<Array<[string, string]>> {
  const own = fc.record(
    Object.fromEntries(
      Object.entries(fields).map(([name, arb]) => [name, fc.oneof({ weight: 3, arbitrary: arb }, { weight: 1, arbitrary: hostileString })]),
    ),
    { requiredKeys: [] },
  );
  return fc
    .tuple(
      own,
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(csrf) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(spareCsrf, `${csrf}x`, '') },
        { weight: 1, arbitrary: hostileString },
      ),
      fc.array(fc.tuple(hostileString, hostileString), { maxLength: 2 }),
    )
    .map(([values, token, strangers]) => [
      ...(Object.entries(values) as Array<[string, string]>),
      ...(token !== undefined ? [['_csrf', token] as [string, string]] : []),
      ...strangers,
    ]);
}

/** A form body: url-encoded (well or badly), multipart with files (well or badly), JSON, nothing, or past the limit. */
export function formBody(
  fields: fc.Arbitrary<Array<[string, string]>>,
  fileNames: string[],
  limit: number,
  bytes: fc.Arbitrary<Buffer>,
): fc.Arbitrary<Body> {
  const file = fc.record({
    name: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...(fileNames.length ? fileNames : ['file'])) },
      { weight: 1, arbitrary: hostileString },
    ),
    filename: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('signature.png', 'template.pdf', 'x', '') },
      { weight: 1, arbitrary: hostileString },
    ),
    type: fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'application/octet-stream', 'text/plain', undefined),
    value: bytes,
  });
  const urlencoded = fields.map(
    (pairs): Body => ({ bytes: Buffer.from(new URLSearchParams(pairs).toString()), type: 'application/x-www-form-urlencoded' }),
  );
  return fc.oneof(
    { weight: 5, arbitrary: urlencoded },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fields,
          fc.array(file, { maxLength: fileNames.length ? 4 : 1 }),
          fc.stringMatching(/^[0-9A-Za-z'()+_,-./:=?]{1,70}$/),
          fc.constantFrom(...MULTIPART_FLAWS),
        )
        .map(([pairs, files, boundary, flaw]) => {
          const parts: FormPart[] = [...pairs.map(([name, value]) => ({ name, value })), ...files.map((f) => ({ ...f, type: f.type }))];
          const { type, body } = multipartBody(parts, { boundary, flaw });
          return { bytes: body, type };
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('%', '%zz', '%ff', '&&==&', '=%00', 'a=1&a=2', '%ED%A0%80=%ED%A0%80', 'email=%40&email=x'), fields)
        .map(
          ([junk, pairs]): Body => ({
            bytes: Buffer.from(`${junk}&${new URLSearchParams(pairs)}`),
            type: 'application/x-www-form-urlencoded',
          }),
        ),
    },
    {
      weight: 1,
      arbitrary: fields.map((pairs): Body => ({ bytes: Buffer.from(JSON.stringify(Object.fromEntries(pairs))), type: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          bytes,
          fc.constantFrom(
            undefined,
            'text/plain',
            'multipart/form-data',
            'multipart/mixed; boundary=x',
            'application/x-www-form-urlencoded; charset=utf-16',
          ),
        )
        .map(([bytes, type]): Body => ({ bytes, type })),
    },
    { weight: 1, arbitrary: fc.constantFrom<Body>({}, { bytes: Buffer.alloc(0), type: 'application/x-www-form-urlencoded' }) },
    {
      weight: 1,
      arbitrary: fc.tuple(fields, fc.constantFrom(limit - 200, limit + 1)).map(
        ([pairs, size]): Body => ({
          bytes: Buffer.from(`${new URLSearchParams(pairs)}&pad=${'x'.repeat(size)}`),
          type: 'application/x-www-form-urlencoded',
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(urlencoded, fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom('abc', '-1', ''))).map(
        ([body, lie]): Body => ({
          ...body,
          contentLength: typeof lie === 'number' ? String(Math.max(0, body.bytes!.length + lie)) : lie,
        }),
      ),
    },
  );
}
