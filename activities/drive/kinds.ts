import { fileTypeFromFile } from 'file-type';

/** What kinds a Drive takes (SPEC: zip, office documents, images, pdf), by the extension file-type names for the bytes. */
const OFFICE = [
  // Office Open XML and OpenDocument (zip containers file-type looks inside), RTF, and the legacy binary formats (CFB).
  'docx',
  'docm',
  'dotx',
  'dotm',
  'xlsx',
  'xlsm',
  'xltx',
  'xltm',
  'pptx',
  'pptm',
  'potx',
  'potm',
  'ppsx',
  'ppsm',
  'vsdx',
  'odt',
  'ott',
  'ods',
  'ots',
  'odp',
  'otp',
  'odg',
  'otg',
  'rtf',
  'cfb',
] as const;
const IMAGES = ['png', 'jpg', 'gif', 'webp', 'tif', 'bmp', 'heic', 'avif'] as const;
export const DRIVE_KINDS: ReadonlySet<string> = new Set(['pdf', 'zip', ...OFFICE, ...IMAGES]);

export interface Sniffed {
  kind: string;
  mediaType: string;
}

/**
 * The kind of a file from its bytes, never from its name or the Content-Type a client sent; undefined
 * when the bytes are of no kind a Drive takes (an .exe renamed .pdf stays an exe).
 */
export async function sniffKind(file: string): Promise<Sniffed | undefined> {
  const found = await fileTypeFromFile(file);
  if (!found || !DRIVE_KINDS.has(found.ext)) return undefined;
  return { kind: found.ext, mediaType: found.mime };
}
