import type { Db } from '../../db/connect';
import type { Principal } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { checkImage } from '../../lib/pdf/image';
import { type Actor, recordAudit } from '../audit/audit';

export const MAX_APPEARANCE_BYTES = 2 * 1024 * 1024;

/**
 * Stores the principal's signature appearance: a readable PNG or JPEG, nothing else. Only the
 * principal sets it, in the app; agents can never upload one (SPEC Guarantee 2).
 */
export async function storeAppearance(
  deps: { db: Db; blobs: BlobStore },
  principal: Principal,
  bytes: Uint8Array,
  actor: Actor,
  field = 'signature',
): Promise<Principal> {
  if (bytes.length === 0)
    throw errors.invalidRequest(t('errors.principals.choose_png_jpeg_image_draw'), [{ path: field, message: 'empty' }]);
  if (bytes.length > MAX_APPEARANCE_BYTES) throw errors.payloadTooLarge(t('errors.principals.image_larger_than_2_mb'));
  const checked = await checkImage(bytes);
  if ('problem' in checked && checked.problem === 'too_large')
    throw errors.invalidRequest(checked.message, [{ path: field, message: checked.message }]);
  if (!('kind' in checked)) throw errors.unsupportedMediaType(t('errors.principals.signature_must_png_jpeg_image'));
  const { kind } = checked;
  const sha256 = await deps.blobs.put(bytes);
  return deps.db.transaction(async (trx) => {
    const updated = await principal
      .$query(trx)
      .patchAndFetch({ signature_sha256: sha256, signature_kind: kind, signature_updated_at: new Date(), updated_at: new Date() });
    await recordAudit(trx, {
      tenantId: principal.tenant_id,
      actor,
      action: 'appearance.stored',
      data: { sha256, kind, bytes: bytes.length },
    });
    return updated;
  });
}
