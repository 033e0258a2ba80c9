// A PDF thread's sealers, made once per configuration it is sent (the key opened, the authority set).
import type { Sealer } from '../seal';
import { type SealerConfig, sealerFromConfig } from '../sealer';

export type { SealerConfig };

const sealers = new Map<string, Promise<Sealer>>();

export function sealerFor(config: SealerConfig): Promise<Sealer> {
  let sealer = sealers.get(config.id);
  if (!sealer) {
    // An approval seal needs no revocation data: nothing to report from a thread.
    sealer = sealerFromConfig(config, () => undefined);
    sealer.catch(() => sealers.delete(config.id));
    sealers.set(config.id, sealer);
  }
  return sealer;
}
