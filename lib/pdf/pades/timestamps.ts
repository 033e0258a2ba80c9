// RFC 3161 timestamps: a client of a timestamp authority over HTTP that checks every token it is given
// (status, imprint, nonce, the TSA's signature), and the development authority `npm start` runs in
// process with its own certificate. A seal never carries a time the authority did not sign.
import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PdfError } from '../errors';
import { checkToken as checkTokenBytes } from '../verify/cms';
import { OID, readSignedData, type SigningKey, sha256, signDigest } from './cms';

/** What the seal asks a timestamp authority: a token over a SHA-256 digest (libpdf's TimestampAuthority shape too). */
export interface TimestampAuthority {
  /** Where it is, for messages: its URL, or "development timestamp authority". */
  readonly name: string;
  /** `algorithm` names the digest's hash: only SHA-256 is asked for. */
  timestamp(digest: Uint8Array, algorithm?: string): Promise<Uint8Array>;
}

/** The authority did not give a usable token: retrying may help (it is down, slow, or answered badly). */
export class TimestampUnavailable extends PdfError {
  constructor(message: string) {
    super('timestamp_unavailable', message);
  }
}

/**
 * A request's nonce: 8 random bytes read as a positive INTEGER in minimal DER. Its first byte is
 * 0x01 to 0x7f: with the high bit set the INTEGER would be negative, and a 0x00 first byte is padding
 * DER forbids there (OpenSSL's authority then refuses the whole request, "Bad request format"), which
 * a plain `& 0x7f` left to one request in 256.
 */
export function timestampNonce(random: (size: number) => Buffer = randomBytes): Buffer {
  const nonce = Buffer.from(random(8));
  nonce[0] = nonce[0] & 0x7f || 0x01;
  return nonce;
}

/**
 * An RFC 3161 authority over HTTP (SVC_TSA_URL), with optional basic credentials. Each token is
 * checked before it is used: granted, over our digest, with our nonce, and signed by the certificate
 * it carries; anything else is TimestampUnavailable, never a seal without a trusted time.
 */
export function httpTimestampAuthority(options: {
  url: string;
  username?: string;
  password?: string;
  timeoutMs: number;
  /** Where the nonce's bytes come from (tests give edge cases); crypto's randomBytes. */
  random?: (size: number) => Buffer;
}): TimestampAuthority {
  const headers: Record<string, string> = {
    'content-type': 'application/timestamp-query',
    accept: 'application/timestamp-reply',
  };
  if (options.username !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
  const name = new URL(options.url).origin + new URL(options.url).pathname;
  return {
    name,
    async timestamp(digest, algorithm) {
      onlySha256(algorithm);
      const nonce = timestampNonce(options.random);
      const request = new pkijs.TimeStampReq({
        version: 1,
        messageImprint: messageImprint(digest),
        nonce: new asn1js.Integer({ valueHex: nonce }),
        certReq: true,
      });
      let reply: Response;
      try {
        reply = await fetch(options.url, {
          method: 'POST',
          headers,
          body: new Uint8Array(request.toSchema().toBER(false)),
          signal: AbortSignal.timeout(options.timeoutMs),
          redirect: 'error',
        });
      } catch (error) {
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (error as Error).message;
        throw new TimestampUnavailable(`The timestamp authority ${name} could not be reached: ${reason}`);
      }
      if (!reply.ok) throw new TimestampUnavailable(`The timestamp authority ${name} answered HTTP ${reply.status}.`);
      const body = new Uint8Array(await reply.arrayBuffer());
      let token: Uint8Array;
      try {
        const response = pkijs.TimeStampResp.fromBER(body);
        const status = response.status.status;
        if (status !== 0 && status !== 1) throw new Error(`status ${status}${statusText(response.status)}`);
        if (!response.timeStampToken) throw new Error('no token in the reply');
        token = new Uint8Array(response.timeStampToken.toSchema().toBER(false));
        await checkToken(token, digest, nonce);
      } catch (error) {
        throw new TimestampUnavailable(`The timestamp authority ${name} gave no usable token: ${(error as Error).message}`);
      }
      return token;
    },
  };
}

function onlySha256(algorithm: string | undefined): void {
  if (algorithm !== undefined && algorithm !== 'SHA-256')
    throw new PdfError('sign_failed', `Timestamps are asked over SHA-256, not ${algorithm}.`);
}

function statusText(status: pkijs.PKIStatusInfo): string {
  const texts = status.statusStrings?.map((text) => text.valueBlock.value).join('; ');
  return texts ? ` (${texts})` : '';
}

function messageImprint(digest: Uint8Array): pkijs.MessageImprint {
  return new pkijs.MessageImprint({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    hashedMessage: new asn1js.OctetString({ valueHex: digest }),
  });
}

async function checkToken(token: Uint8Array, digest: Uint8Array, nonce: Buffer): Promise<void> {
  const checked = checkTokenBytes(token, (hash) => (hash === 'sha256' ? Buffer.from(digest) : undefined));
  if (checked.format) throw new Error(checked.format);
  if (!checked.imprintOk) throw new Error('the token is over another digest');
  if (!checked.signer || !checked.digestOk || !checked.signatureOk) throw new Error('the token’s signature does not verify');
  const tstInfo = pkijs.TSTInfo.fromBER(readSignedData(token).encapContentInfo.eContent!.getValue());
  const echoed = tstInfo.nonce ? Buffer.from(tstInfo.nonce.valueBlock.valueHexView) : undefined;
  if (!echoed || !stripZeros(echoed).equals(stripZeros(nonce))) throw new Error('the token does not carry the request’s nonce');
}

function stripZeros(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  return bytes.subarray(start);
}

/** The policy the development authority stamps: an OID under the private enterprise arc reserved for examples (RFC 5612). */
const DEVELOPMENT_POLICY = '1.3.6.1.4.1.32473.1.1';

/**
 * The development timestamp authority `npm start` runs in process: real RFC 3161 tokens signed by a
 * TSA certificate of the development CA under the data dir, so the whole seal path works out of the
 * box. Its time is this machine's clock; production uses SVC_TSA_URL.
 */
export function developmentTimestampAuthority(key: SigningKey): TimestampAuthority {
  return {
    name: 'development timestamp authority',
    async timestamp(digest, algorithm) {
      onlySha256(algorithm);
      const tstInfo = new pkijs.TSTInfo({
        version: 1,
        policy: DEVELOPMENT_POLICY,
        messageImprint: messageImprint(digest),
        serialNumber: new asn1js.Integer({ valueHex: positive(randomBytes(16)) }),
        genTime: new Date(),
        accuracy: new pkijs.Accuracy({ seconds: 1 }),
        ordering: false,
        tsa: new pkijs.GeneralName({ type: 4, value: key.certificate.subject }),
      });
      const content = new Uint8Array(tstInfo.toSchema().toBER(false));
      const signed = await signDigest(key, { contentType: OID.tstInfo, digest: sha256(content), content });
      return new Uint8Array(new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema() }).toSchema().toBER(false));
    },
  };
}

function positive(bytes: Buffer): Buffer {
  bytes[0] &= 0x7f;
  if (bytes[0] === 0) bytes[0] = 1;
  return bytes;
}
