import { type ReleaseDeps, type ReleaseState, releaseIfReady } from './release';

/** The unlock wait's activity: releases the package when what unlocks it holds, and says where it stands. */
export function createTransferActivities(deps: ReleaseDeps) {
  return {
    async checkRelease(transferId: string): Promise<ReleaseState> {
      return deps.db.transaction((trx) => releaseIfReady(trx, transferId));
    },
  };
}
export type TransferActivities = ReturnType<typeof createTransferActivities>;
