import type { Config } from '../config/config';
import type { Logger } from '../log';
import { openSigningKey, type SealCertificate } from './pades/pki';
import { httpRevocationProvider } from './pades/revocation';
import { developmentTimestampAuthority, httpTimestampAuthority, type TimestampAuthority } from './pades/timestamps';
import { createSealer, type Sealer } from './seal';
import { loadDevelopmentPki, loadSealMaterial } from './seal-certificate';

/**
 * What a sealer is made of, as plain data a PDF thread can be sent: the seal's PKCS#12, and where its
 * timestamps come from (an authority's URL, or the development authority's PKCS#12). `id` names it.
 */
export interface SealerConfig {
  id: string;
  seal: SealCertificate;
  tsa?:
    | { kind: 'http'; url: string; username?: string; password?: string; timeoutMs: number }
    | { kind: 'development'; certificate: SealCertificate };
  revocationTimeoutMs: number;
}

/**
 * The process's sealer configuration: the seal certificate (SVC_SIGNING_P12, else the development PKI
 * under the data dir), the timestamp authority (SVC_TSA_URL, else outside production the development
 * one; production without one only with SVC_ALLOW_UNTIMESTAMPED_SEALS, which loadConfig enforces).
 */
export async function loadSealerConfig(config: Config, log: Logger): Promise<SealerConfig> {
  const { signing } = config;
  const material = await loadSealMaterial({ dataDir: config.dataDir, p12Path: signing.p12Path, passphrase: signing.passphrase });
  let tsa: SealerConfig['tsa'];
  if (signing.tsa) tsa = { kind: 'http', ...signing.tsa };
  else if (config.env !== 'production')
    tsa = { kind: 'development', certificate: material.developmentTsa ?? (await loadDevelopmentPki(config.dataDir)).tsa };
  else log.warn('seals carry no timestamp (SVC_ALLOW_UNTIMESTAMPED_SEALS): their time is this server’s own claim');
  return {
    id: `${config.dataDir}:${signing.p12Path ?? 'development'}:${signing.tsa?.url ?? tsa?.kind ?? 'none'}`,
    seal: material.seal,
    tsa,
    revocationTimeoutMs: signing.revocationTimeoutMs,
  };
}

/** A sealer from its configuration; `report` hears of revocation data that could not be had. */
export async function sealerFromConfig(sealer: SealerConfig, report: (message: string) => void): Promise<Sealer> {
  const key = await openSigningKey(asCertificate(sealer.seal));
  let tsa: TimestampAuthority | undefined;
  if (sealer.tsa?.kind === 'http') tsa = httpTimestampAuthority(sealer.tsa);
  else if (sealer.tsa?.kind === 'development')
    tsa = developmentTimestampAuthority(await openSigningKey(asCertificate(sealer.tsa.certificate)));
  const revocation = httpRevocationProvider({ timeoutMs: sealer.revocationTimeoutMs, report });
  return createSealer(key, { tsa, revocation, revocationTimeoutMs: sealer.revocationTimeoutMs });
}

/** The process's sealer (the worker's, and the API's when it seals in process). */
export async function loadSealer(config: Config, log: Logger): Promise<Sealer> {
  return sealerFromConfig(await loadSealerConfig(config, log), (message) => log.warn(`seal validation data: ${message}`));
}

/** A PKCS#12 that crossed a thread arrives as a Uint8Array. */
function asCertificate(certificate: SealCertificate): SealCertificate {
  return { p12: Buffer.from(certificate.p12), passphrase: certificate.passphrase };
}

/** A sealer on the development PKI under `dataDir` with its in-process timestamp authority (tests, benchmarks). */
export async function developmentSealer(dataDir: string): Promise<Sealer> {
  const pki = await loadDevelopmentPki(dataDir);
  return createSealer(await openSigningKey(pki.seal), { tsa: developmentTimestampAuthority(await openSigningKey(pki.tsa)) });
}
