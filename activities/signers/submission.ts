import { boundedDetails, errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { imageSizeProblem } from '../../lib/pdf/image';
import { AUTO_FILLED, type Widget } from '../../lib/pdf/widgets';

export type SignerValues = Record<string, string | boolean>;

/**
 * Values may only name the signer's own fillable widgets, each with a value of its kind. A body with
 * more values than the signer has fields is refused at once (nothing echoed); otherwise each value is
 * looked up once, and at most MAX_NAMED_DETAILS problems are named (boundedDetails).
 */
export function checkValues(widgets: Widget[], values: SignerValues): void {
  const ids = Object.keys(values);
  if (ids.length > widgets.length)
    throw errors.invalidRequest(t('errors.signers.too_many_field_values_given', { given: ids.length, fields: widgets.length }), [
      { path: 'values', message: `at most ${widgets.length} values` },
    ]);
  const byId = new Map(widgets.map((widget) => [widget.id, widget]));
  const problems = boundedDetails();
  for (const id of ids) {
    const problem = valueProblem(byId.get(id), values[id]);
    if (problem) problems.add({ path: `values.${id}`, message: problem });
  }
  const details = problems.list('values');
  if (details.length > 0)
    throw errors.invalidRequest(
      t('errors.signers.invalid_field_values', { problems: details.map((d) => `${d.path}: ${d.message}`).join('; ') }),
      details,
    );
}

function valueProblem(widget: Widget | undefined, value: string | boolean): string | undefined {
  if (!widget || AUTO_FILLED.has(widget.type)) return 'not a field you fill';
  if (widget.type === 'checkbox') return typeof value === 'boolean' ? undefined : 'expected true or false';
  if (typeof value !== 'string') return 'expected text';
  if ((widget.type === 'dropdown' || widget.type === 'radio') && value !== '' && !widget.options?.includes(value))
    return `expected one of ${widget.options?.join(', ')}`;
  return undefined;
}

const DATA_URL = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;

/** The bytes of a `data:image/png|jpeg;base64,…` URL within the image limits; 400 naming the field otherwise. */
export function decodeImage(dataUrl: string, path: string): Buffer {
  const match = DATA_URL.exec(dataUrl);
  if (!match)
    throw errors.invalidRequest(t('errors.signers.image_must_png_jpeg_data'), [
      { path, message: 'expected data:image/png;base64,… or data:image/jpeg;base64,…' },
    ]);
  const bytes = Buffer.from(match[2], 'base64');
  // From the header alone: the whole-file check (recordApply) then inflates only what is within the limits.
  const tooLarge = imageSizeProblem(bytes);
  if (tooLarge) throw errors.invalidRequest(tooLarge, [{ path, message: tooLarge }]);
  return bytes;
}
