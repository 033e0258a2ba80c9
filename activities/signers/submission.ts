import { type ErrorDetail, errors } from '../../lib/errors';
import { imageSizeProblem } from '../../lib/pdf/image';
import { AUTO_FILLED, type Widget } from '../../lib/pdf/widgets';

export type SignerValues = Record<string, string | boolean>;

/** Values may only name the signer's own fillable widgets, each with a value of its kind. */
export function checkValues(widgets: Widget[], values: SignerValues): void {
  const details: ErrorDetail[] = [];
  for (const [id, value] of Object.entries(values)) {
    const widget = widgets.find((candidate) => candidate.id === id);
    const path = `values.${id}`;
    if (!widget || AUTO_FILLED.has(widget.type)) details.push({ path, message: 'not a field you fill' });
    else if (widget.type === 'checkbox' && typeof value !== 'boolean') details.push({ path, message: 'expected true or false' });
    else if (widget.type !== 'checkbox' && typeof value !== 'string') details.push({ path, message: 'expected text' });
    else if (widget.type === 'dropdown' && value !== '' && !widget.options?.includes(value as string))
      details.push({ path, message: `expected one of ${widget.options?.join(', ')}` });
  }
  if (details.length > 0)
    throw errors.invalidRequest(`Invalid field values: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
}

const DATA_URL = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;

/** The bytes of a `data:image/png|jpeg;base64,…` URL within the image limits; 400 naming the field otherwise. */
export function decodeImage(dataUrl: string, path: string): Buffer {
  const match = DATA_URL.exec(dataUrl);
  if (!match)
    throw errors.invalidRequest('The image must be a PNG or JPEG data URL.', [
      { path, message: 'expected data:image/png;base64,… or data:image/jpeg;base64,…' },
    ]);
  const bytes = Buffer.from(match[2], 'base64');
  // From the header alone: the whole-file check (recordApply) then inflates only what is within the limits.
  const tooLarge = imageSizeProblem(bytes);
  if (tooLarge) throw errors.invalidRequest(tooLarge, [{ path, message: tooLarge }]);
  return bytes;
}
