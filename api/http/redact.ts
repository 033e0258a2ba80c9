/** A link token in a path: `<id>.<MAC>` (sign and confirm links), or a raw claim token. */
const TOKEN_SEGMENT = /^(?:[^/.]+\.[A-Za-z0-9_-]{20,}|svcxfer_[A-Za-z0-9]+)$/;

/** The request path as logs may show it: every link token masked, so no log line can open a link. */
export function loggablePath(path: string): string {
  return path
    .split('/')
    .map((segment) => (TOKEN_SEGMENT.test(segment) ? '…' : segment))
    .join('/');
}
