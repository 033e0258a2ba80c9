// npm test's batches (test/run.ts): one JSON line per file of the batch (the top-level suite that
// test/batch.ts names by the file's path) with its wall time and whether it passed, read back by run.ts
// for the slowest files and for files a crashed batch never finished.
export default async function* fileTimes(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.nesting !== 0) continue;
    yield `${JSON.stringify({ file: event.data.name, seconds: (event.data.details?.duration_ms ?? 0) / 1000, ok: event.type === 'test:pass' })}\n`;
  }
}
