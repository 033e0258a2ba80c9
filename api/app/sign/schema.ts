import { z } from 'zod';
import { t } from '../../../lib/i18n';

const MAX_IMAGE_CHARS = 3_000_000;

/** The code, and the challenge `POST …/code` answered: a code works only with the page that asked for it. */
export const SignVerifySchema = z.strictObject({ code: z.string().trim().min(1).max(20), challenge: z.string().max(200).optional() });

export const SignSubmitSchema = z.strictObject({
  consent: z.literal(true, { error: () => t('sign.error.consent') }),
  signature: z.strictObject({
    method: z.enum(['drawn', 'typed', 'uploaded']),
    image: z.string().max(MAX_IMAGE_CHARS),
  }),
  initials: z.strictObject({ image: z.string().max(MAX_IMAGE_CHARS) }).optional(),
  /** Keyed by widget id (at most 64 characters); checkValues then allows no more values than the signer has fields. */
  values: z.record(z.string().max(64), z.union([z.string().max(1000), z.boolean()])).default({}),
});

export const SignDeclineSchema = z.strictObject({ reason: z.string().trim().max(1000).optional() });
