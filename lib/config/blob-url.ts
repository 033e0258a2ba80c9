import path from 'node:path';
import { ConfigError } from './errors';

/** Where blobs (PDFs, signature images, Drive files) live: files under a directory, or an S3 bucket. */
export type BlobLocation =
  | { kind: 'file'; directory: string }
  | {
      kind: 's3';
      bucket: string;
      /** Keys are `<prefix>/<first two hex digits>/<sha256>`. */
      prefix: string;
      /** An S3-compatible server (MinIO, Ceph …); unset means AWS S3 itself. */
      endpoint?: string;
      region: string;
      forcePathStyle: boolean;
      /** From AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; unset means the SDK's default chain (profile, container or instance role). */
      credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
      /** Staged uploads are hashed and sniffed here before they go to the bucket. */
      stagingDirectory: string;
    };

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PARAMETERS = new Set(['endpoint', 'region', 'force_path_style']);

/**
 * SVC_BLOB_URL: unset or `file:` (optionally `file:///absolute/dir`) keeps blobs in files under
 * `<dataDir>/blobs`; `s3://bucket[/prefix]?endpoint=…&region=…&force_path_style=true` puts them in
 * a bucket. Credentials never come from the URL (it is printed and logged too easily).
 */
export function parseBlobUrl(value: string | undefined, dataDir: string, env: Record<string, string | undefined> = {}): BlobLocation {
  if (!value) return { kind: 'file', directory: path.join(dataDir, 'blobs') };
  const fail = (reason: string): never => {
    throw new ConfigError(`SVC_BLOB_URL: ${reason}`);
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('not a URL; expected s3://bucket?endpoint=…&region=… or file:///directory');
  }
  if (url.username || url.password) {
    return fail('must not carry credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead');
  }
  if (url.protocol === 'file:') {
    if (url.search || url.host) fail('a file: URL takes a local path only, e.g. file:///var/lib/svc/blobs');
    return { kind: 'file', directory: url.pathname === '/' || url.pathname === '' ? path.join(dataDir, 'blobs') : url.pathname };
  }
  if (url.protocol !== 's3:') return fail(`unsupported scheme ${url.protocol}; expected s3: or file:`);
  const bucket = url.hostname;
  if (!BUCKET.test(bucket)) fail(`"${bucket}" is not a valid bucket name (3–63 lower-case letters, digits, dots, hyphens)`);
  if (url.port) fail('put the server in ?endpoint=http://host:port, not in the bucket part');
  for (const name of url.searchParams.keys()) {
    if (!PARAMETERS.has(name)) fail(`unknown parameter "${name}" (known: ${[...PARAMETERS].join(', ')})`);
  }
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(endpoint);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol)) fail(`endpoint "${endpoint}" must be an http:// or https:// URL`);
    if (parsed?.username || parsed?.password) fail('the endpoint must not carry credentials');
  }
  const forcePathStyle = url.searchParams.get('force_path_style') ?? 'false';
  if (!['true', 'false', '1', '0'].includes(forcePathStyle)) fail('force_path_style must be true or false');
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '') || 'blobs';
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) fail('set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither');
  return {
    kind: 's3',
    bucket,
    prefix,
    endpoint: endpoint?.replace(/\/+$/, ''),
    region: url.searchParams.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: forcePathStyle === 'true' || forcePathStyle === '1',
    credentials:
      accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
        : undefined,
    stagingDirectory: path.join(dataDir, 'staging'),
  };
}

/** The location without secrets, for logs and the startup banner. */
export function describeBlobLocation(location: BlobLocation): string {
  if (location.kind === 'file') return location.directory;
  return `s3://${location.bucket}/${location.prefix}${location.endpoint ? ` at ${location.endpoint}` : ''}`;
}
