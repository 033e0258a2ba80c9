/**
 * An OAuth refusal as RFC 6749 words it (`{error, error_description}`): the token and registration
 * endpoints answer with it, the authorization endpoint redirects with it once the redirect URI is known.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }

  get body() {
    return { error: this.error, error_description: this.description };
  }
}

export const oauthError = (error: string, description: string, status = 400) => new OAuthError(error, description, status);
