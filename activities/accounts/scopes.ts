// The scopes of API keys: what every new key has, and the one only a mandate grant adds.

/** Scopes every new key has. `documents:sign` is never among them: only a mandate grant adds it. */
export const DEFAULT_SCOPES = [
  'documents:read',
  'documents:write',
  'templates:read',
  'contacts:write',
  'offers:write',
  'drive:write',
  'transfers:write',
  'webhooks:write',
] as const;
/** The scope of signing: added to a key by a mandate grant, removed when its last mandate ends. */
export const SIGN_SCOPE = 'documents:sign';
