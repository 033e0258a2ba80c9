// What every case builder is given (keys, the service's sealer, shared intermediate files) and what
// it answers: a signed PDF and the verdict the verifier must reach on it.
import fs from 'node:fs/promises';
import { createSealer, type Sealer } from '../../lib/pdf/seal';
import { startTestPki, type TestPki } from '../pki';
import { type CorpusKeys, corpusKeys } from './keys';

export type Indication = 'TOTAL-PASSED' | 'TOTAL-FAILED' | 'INDETERMINATE';

export interface ExpectedSignature {
  kind: 'approval' | 'certification' | 'timestamp';
  indication: Indication;
  subIndication?: string;
  /** false: no AcroForm field leads to this signature dictionary (it is found only by scanning). */
  reachable?: boolean;
  /** The signature's own RFC 3161 timestamp, judged on its own, when the case is about it. */
  timestamp?: { indication: Indication; subIndication?: string };
}

export interface Expectation {
  verdict: 'valid' | 'invalid' | 'indeterminate';
  /** Every signature dictionary, in order of its /ByteRange end (document order), unreachable ones included. */
  signatures: ExpectedSignature[];
}

export interface CorpusPdf {
  name: string;
  /** How it was made, and what pdfsig (poppler 22.12) and pdfcpu 0.15 said of it when it was written. */
  description: string;
  pdf: Buffer;
  expect: Expectation;
}

export interface Corpus {
  /** PEM certificates to trust: the development CA, and each test PKI's root when those cases are built. */
  anchorsPem: string[];
  cases: CorpusPdf[];
  close(): Promise<void>;
}

export interface CorpusKit {
  keys: CorpusKeys;
  /** The service's approval and certification seals: development seal, development TSA. */
  sealer: Sealer;
  /** The development CA, then the roots of the test PKIs started. */
  anchorsPem: string[];
  /** One build per name: cases that extend another case's file start from the very same bytes. */
  once<T>(name: string, build: () => Promise<T>): Promise<T>;
  /** A real openssl PKI on loopback (test/pki.ts); its root joins anchorsPem; stopped by close(). */
  startTestPki(): Promise<TestPki>;
  close(): Promise<void>;
}

export async function corpusKit(): Promise<CorpusKit> {
  const keys = await corpusKeys();
  const built = new Map<string, Promise<unknown>>();
  const pkis: TestPki[] = [];
  const anchorsPem = [keys.caPem];
  return {
    keys,
    sealer: createSealer(keys.seal, { tsa: keys.tsa }),
    anchorsPem,
    once<T>(name: string, build: () => Promise<T>) {
      if (!built.has(name)) built.set(name, build());
      return built.get(name) as Promise<T>;
    },
    async startTestPki() {
      const pki = await startTestPki();
      pkis.push(pki);
      anchorsPem.push(await fs.readFile(pki.rootCaPem, 'utf8'));
      return pki;
    },
    async close() {
      await Promise.all(pkis.map((pki) => pki.close()));
      await keys.close();
    },
  };
}

/** A case's record. */
export function corpusPdf(name: string, description: string, pdf: Uint8Array, expect: Expectation): CorpusPdf {
  return { name, description, pdf: Buffer.from(pdf), expect };
}

/** The verdict and signatures of a case, written compactly: `expectation('invalid', ['certification', 'TOTAL-FAILED', 'FORMAT_FAILURE'])`. */
export function expectation(
  verdict: Expectation['verdict'],
  ...signatures: Array<[ExpectedSignature['kind'], Indication, string?] | ExpectedSignature>
): Expectation {
  return {
    verdict,
    signatures: signatures.map((signature) =>
      Array.isArray(signature)
        ? { kind: signature[0], indication: signature[1], ...(signature[2] ? { subIndication: signature[2] } : {}) }
        : signature,
    ),
  };
}

/** A case's description: how it was built, then what pdfsig and pdfcpu said of it when it was written. */
export function described(construction: string, said: { pdfsig: string; pdfcpu: string }): string {
  return `${construction} Observed: pdfsig (poppler 22.12): ${said.pdfsig} pdfcpu 0.15 (anchors trusted): ${said.pdfcpu}`;
}

/** What the tools say again and again. */
export const SAID = {
  /** pdfsig's NSS store does not hold the development CA. */
  ownValid: "'Signature is Valid.', 'Certificate issuer isn't Trusted.'",
  /** pdfcpu with the development CA trusted: the development certificates name no OCSP or CRL URL. */
  revocationUnknown: "'validity of the signature is unknown' (signer's certificate revocation status is unknown)",
  /** pdfsig 22 cannot verify ETSI.RFC3161 ("Unable to validate this type of signature"). */
  timestampUnverified: "'Signature has not yet been verified.'",
} as const;

/** Sealing info the service's sealer takes. */
export const SEAL_INFO = { reason: 'Document created', location: 'corpus' } as const;
