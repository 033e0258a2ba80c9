import type { Config } from '../config/config';
import type { Logger } from '../log';
import { openSigningKey } from './pades/pki';
import { httpRevocationProvider } from './pades/revocation';
import { developmentTimestampAuthority, httpTimestampAuthority, type TimestampAuthority } from './pades/timestamps';
import { createSealer, type Sealer } from './seal';
import { loadDevelopmentPki, loadSealMaterial } from './seal-certificate';

/**
 * The process's sealer from configuration: the seal certificate (SVC_SIGNING_P12, else the
 * development PKI under the data dir), the timestamp authority (SVC_TSA_URL, else outside production
 * the development one; production without one only with SVC_ALLOW_UNTIMESTAMPED_SEALS, which
 * loadConfig enforces), and revocation data fetched from the certificates' own URLs.
 */
export async function loadSealer(config: Config, log: Logger): Promise<Sealer> {
  const { signing } = config;
  const material = await loadSealMaterial({ dataDir: config.dataDir, p12Path: signing.p12Path, passphrase: signing.passphrase });
  const key = await openSigningKey(material.seal);
  let tsa: TimestampAuthority | undefined;
  if (signing.tsa) tsa = httpTimestampAuthority(signing.tsa);
  else if (config.env !== 'production') {
    const developmentTsa = material.developmentTsa ?? (await loadDevelopmentPki(config.dataDir)).tsa;
    tsa = developmentTimestampAuthority(await openSigningKey(developmentTsa));
  } else log.warn('seals carry no timestamp (SVC_ALLOW_UNTIMESTAMPED_SEALS): their time is this server’s own claim');
  const revocation = httpRevocationProvider({
    timeoutMs: signing.revocationTimeoutMs,
    report: (message) => log.warn(`seal validation data: ${message}`),
  });
  return createSealer(key, { tsa, revocation, revocationTimeoutMs: signing.revocationTimeoutMs });
}

/** A sealer on the development PKI under `dataDir` with its in-process timestamp authority (tests, benchmarks). */
export async function developmentSealer(dataDir: string): Promise<Sealer> {
  const pki = await loadDevelopmentPki(dataDir);
  return createSealer(await openSigningKey(pki.seal), { tsa: developmentTimestampAuthority(await openSigningKey(pki.tsa)) });
}
