/** A setting that cannot be used; the process stops with this message instead of running misconfigured. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
