import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../lib/errors';
import type { Widget } from '../../lib/pdf/widgets';
import { blankPng, dataUrl, signaturePng, TINY_GIF } from '../../test/images';
import { checkValues, decodeImage } from './submission';

const base = { role: 'R', page: 1, x: 0, y: 0, width: 10, height: 10, required: true };
const widgets: Widget[] = [
  { ...base, id: 'sig', type: 'signature' },
  { ...base, id: 'date', type: 'date' },
  { ...base, id: 'title', type: 'text' },
  { ...base, id: 'agree', type: 'checkbox' },
  { ...base, id: 'term', type: 'dropdown', options: ['1 year', '2 years'] },
];

/** The `{path, message}` details of the 400 that `run` throws. */
function refusal(run: () => unknown): Array<{ path: string; message: string }> {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, 'invalid_request');
    return (error.details ?? []) as Array<{ path: string; message: string }>;
  }
  assert.fail('expected invalid_request');
}

describe('what a signer may submit', () => {
  it('takes a value of its kind for each of the signer’s own fillable widgets, and none at all', () => {
    checkValues(widgets, {});
    checkValues(widgets, { title: 'CFO', agree: false, term: '2 years' });
    checkValues(widgets, { term: '' });
  });

  it('refuses values for other widgets, auto-filled ones, and values of the wrong kind, naming each', () => {
    assert.deepEqual(
      refusal(() => checkValues(widgets, { theirs: 'x', sig: 'x', title: true, agree: 'yes', term: '3 years' })),
      [
        { path: 'values.theirs', message: 'not a field you fill' },
        { path: 'values.sig', message: 'not a field you fill' },
        { path: 'values.title', message: 'expected text' },
        { path: 'values.agree', message: 'expected true or false' },
        { path: 'values.term', message: 'expected one of 1 year, 2 years' },
      ],
    );
    assert.deepEqual(
      refusal(() => checkValues(widgets, { date: '2020-01-01' })),
      [{ path: 'values.date', message: 'not a field you fill' }],
    );
  });

  it('refuses more values than the signer has fields at once, naming none of them', () => {
    const values = Object.fromEntries(Array.from({ length: widgets.length + 1 }, (_, i) => [`f${i}`, 'x']));
    assert.deepEqual(
      refusal(() => checkValues(widgets, values)),
      [{ path: 'values', message: `at most ${widgets.length} values` }],
    );
  });

  it('names at most 20 problems and counts the rest', () => {
    const many: Widget[] = Array.from({ length: 30 }, (_, i) => ({ ...base, id: `t${i}`, type: 'text' }));
    const details = refusal(() => checkValues(many, Object.fromEntries(many.map((widget) => [widget.id, true]))));
    assert.equal(details.length, 21);
    assert.deepEqual(details[0], { path: 'values.t0', message: 'expected text' });
    assert.deepEqual(details[20], { path: 'values', message: 'and 10 more' });
  });

  it('decodes a PNG or JPEG data URL within the image limits, and names the field otherwise', () => {
    assert.deepEqual(decodeImage(dataUrl(signaturePng()), 'signature.image'), signaturePng());
    assert.deepEqual(
      refusal(() => decodeImage(dataUrl(TINY_GIF, 'image/gif'), 'signature.image')).map((d) => d.path),
      ['signature.image'],
    );
    const tooLarge = refusal(() => decodeImage(dataUrl(blankPng(5000, 5000)), 'initials.image'));
    assert.equal(tooLarge[0].path, 'initials.image');
    assert.match(tooLarge[0].message, /4 megapixels/);
  });
});
