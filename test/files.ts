import { buildSampleNda } from '../lib/pdf/samples';
import { crc32, signaturePng, TINY_GIF, TINY_JPEG } from './images';

/** A zip archive of the given entries, stored (no compression), as a zip tool writes one. */
export function zipOf(entries: Array<[name: string, content: string | Buffer]>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const OOXML_TYPES = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/${main}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;

/** One small file of each kind a Drive takes, as its bytes, with the kind file-type names for them. */
export async function driveSamples(): Promise<Array<{ name: string; kind: string; bytes: Buffer }>> {
  return [
    { name: 'contract.pdf', kind: 'pdf', bytes: Buffer.from((await buildSampleNda()).pdf) },
    { name: 'signature.png', kind: 'png', bytes: signaturePng() },
    { name: 'photo.jpg', kind: 'jpg', bytes: TINY_JPEG },
    { name: 'tiny.gif', kind: 'gif', bytes: TINY_GIF },
    {
      name: 'bundle.zip',
      kind: 'zip',
      bytes: zipOf([
        ['readme.txt', 'hello'],
        ['data/values.csv', 'a,b\n1,2\n'],
      ]),
    },
    {
      name: 'letter.docx',
      kind: 'docx',
      bytes: zipOf([
        ['[Content_Types].xml', OOXML_TYPES('word/document.xml')],
        ['word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>'],
      ]),
    },
    {
      name: 'minutes.odt',
      kind: 'odt',
      bytes: zipOf([
        ['mimetype', 'application/vnd.oasis.opendocument.text'],
        ['content.xml', '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>'],
      ]),
    },
  ];
}

/** A Windows executable's first bytes (what file-type knows an .exe by), however it is named. */
export function executable(): Buffer {
  const bytes = Buffer.alloc(1024);
  bytes.write('MZ', 0, 'ascii');
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write('PE\0\0', 0x80, 'ascii');
  return bytes;
}
