// A fresh bucket on the run's MinIO server (test/run.ts starts one when a test file names
// TEST_S3_ENDPOINT), and the environment that points the service at it.
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { randomBase62 } from '../lib/ids';

export interface TestBucket {
  name: string;
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  client: S3Client;
  /** SVC_BLOB_URL and the AWS_* credentials, for a stack's environment. */
  env: Record<string, string>;
  /** Every key in the bucket, sorted. */
  keys(): Promise<string[]>;
  /** Multipart uploads begun and neither completed nor aborted. */
  openUploads(): Promise<number>;
  drop(): Promise<void>;
}

export function s3Server(): { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } } {
  const endpoint = process.env.TEST_S3_ENDPOINT;
  const accessKeyId = process.env.TEST_S3_ACCESS_KEY;
  const secretAccessKey = process.env.TEST_S3_SECRET_KEY;
  if (!endpoint || !accessKeyId || !secretAccessKey) {
    throw new Error(
      'TEST_S3_ENDPOINT, TEST_S3_ACCESS_KEY and TEST_S3_SECRET_KEY are unset: run the tests with npm test, which starts MinIO',
    );
  }
  return { endpoint, credentials: { accessKeyId, secretAccessKey } };
}

export async function createTestBucket(): Promise<TestBucket> {
  const { endpoint, credentials } = s3Server();
  const name = `test-${randomBase62(12).toLowerCase()}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: name }));
  const keys = async () => {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
      found.push(...(page.Contents ?? []).map((object) => object.Key!));
      token = page.NextContinuationToken;
    } while (token);
    return found.sort();
  };
  return {
    name,
    endpoint,
    credentials,
    client,
    env: {
      SVC_BLOB_URL: `s3://${name}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    keys,
    async openUploads() {
      return (await client.send(new ListMultipartUploadsCommand({ Bucket: name }))).Uploads?.length ?? 0;
    },
    async drop() {
      const all = await keys();
      for (let i = 0; i < all.length; i += 1000) {
        await client.send(new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: all.slice(i, i + 1000).map((Key) => ({ Key })) } }));
      }
      await client.send(new DeleteBucketCommand({ Bucket: name }));
      client.destroy();
    },
  };
}
