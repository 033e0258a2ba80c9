/**
 * SVC_SECRET_KEY with the keys it replaced (SVC_SECRET_KEY_PREVIOUS), so it can be rotated without a
 * maintenance window: new links, cookies, codes and ciphertexts use the current key; verifying and
 * decrypting also accept the previous ones, until `npm run -s admin -- reencrypt-secrets` has moved the
 * stored ciphertexts to the current key and the links made with the old one have expired or been
 * replaced. The key stays a Buffer everywhere (its previous keys are looked up by identity), so no
 * caller changes.
 */
const previousKeys = new WeakMap<Buffer, readonly Buffer[]>();

/** The current key, remembering the previous ones beside it. */
export function withPreviousKeys(current: Buffer, previous: readonly Buffer[]): Buffer {
  if (previous.length > 0) previousKeys.set(current, previous);
  return current;
}

/** The current key first, then each previous one: what verifying and decrypting may use. */
export function keysOf(secret: Buffer): readonly Buffer[] {
  const previous = previousKeys.get(secret);
  return previous ? [secret, ...previous] : [secret];
}
