/** A PDF the engine cannot read, draw on or seal; `reason` is a stable code callers map to API errors. */
export class PdfError extends Error {
  override name = 'PdfError';

  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}
