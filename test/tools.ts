// The Go-built tools of the whole suite (the Temporal CLI, MinIO, pdfcpu, Compose), each built once into
// the cache when missing, side by side. test/run.sh starts this in the background before `npm ci` and
// the apt installs, on Node's own type stripping (no dependency installed yet), and waits for it before
// the tests; test/run.ts then finds each tool built. Each line it prints says what it built or found.
import { ensureCompose } from '../runtime/compose';
import { ensureMinio } from '../runtime/minio';
import { ensurePdfcpu } from '../runtime/pdfcpu';
import { ensureTemporalCli } from '../runtime/temporal-cli';

const started = Date.now();
const log = (line: string) => process.stdout.write(`${line}\n`);
const tools: Array<[string, () => Promise<string>]> = [
  ['Temporal CLI', () => ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI, log })],
  [
    'MinIO',
    () =>
      process.env.TEST_S3_ENDPOINT
        ? Promise.resolve('not needed (TEST_S3_ENDPOINT)')
        : ensureMinio({ explicit: process.env.MINIO_BINARY, log }),
  ],
  ['pdfcpu', () => ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY, log })],
  ['Compose', () => ensureCompose({ explicit: process.env.COMPOSE_BINARY, log })],
];
const results = await Promise.allSettled(tools.map(([, ensure]) => ensure()));
let failed = false;
results.forEach((result, index) => {
  if (result.status === 'fulfilled') log(`${tools[index][0]}: ${result.value}`);
  else {
    failed = true;
    log(`${tools[index][0]}: ${(result.reason as Error).message}`);
  }
});
log(`tools ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(failed ? 1 : 0);
