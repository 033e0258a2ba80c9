import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { MIB, refused, threads, usePdfThreads } from '../../../test/fixtures/pdf-intake';
import { buildSampleNda } from '../samples';
import { deeplyNested, manyObjects, manyPages, objectStreamBomb, onePage, rawPdf, streamBody, zerosDeflated } from './hostile-pdfs';
import { createPdfThreads } from './index';

/**
 * Runs `task` and answers how the CPU it cost was shared: this thread's own CPU time against the whole
 * process's (this thread and the PDF threads) over the same span. Work done on a PDF thread shows as a
 * small share here whatever else the machine is doing; the same work on this thread would be nearly all of it.
 */

async function cpuShare<T>(task: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; here: number; all: number }> {
  const hereBefore = process.threadCpuUsage();
  const allBefore = process.cpuUsage();
  const [result] = await Promise.allSettled([task()]);
  const here = process.threadCpuUsage(hereBefore);
  const all = process.cpuUsage(allBefore);
  return { result, here: (here.user + here.system) / 1000, all: (all.user + all.system) / 1000 };
}

/** What zlib inflates these bytes to, counted chunk by chunk. */
function inflatedSize(data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let total = 0;
    zlib
      .createInflate()
      .on('data', (chunk: Buffer) => {
        total += chunk.length;
      })
      .on('end', () => resolve(total))
      .on('error', reject)
      .end(data);
  });
}

describe('PDF intake', () => {
  usePdfThreads();

  describe('limits', () => {
    it('refuses an object-stream bomb at the inflate limit, inflating on a PDF thread, not this one', async () => {
      const bomb = objectStreamBomb(7, 300);
      assert.ok(bomb.length > 2 * MIB && bomb.length < 2.5 * MIB, `about 2 MB (${bomb.length} bytes)`);
      assert.equal(await inflatedSize(zerosDeflated(300)), 300 * MIB, 'each stream really inflates to 300 MiB');

      const { result, here, all } = await cpuShare(() => threads.intake(bomb));
      assert.equal(result.status, 'rejected');
      await refused(Promise.reject((result as PromiseRejectedResult).reason), /^The PDF inflates to more than 256 MiB \(limit: 200 times/);
      assert.ok(here < all / 4, `this thread spent ${Math.round(here)} ms of CPU of the ${Math.round(all)} ms the refusal cost`);
    });

    it('refuses what inflates past 200 times its size before the cap, through a filter chain too', async () => {
      const small = createPdfThreads({ size: 1, limits: { maxInflatedBytes: 32 * MIB } });
      try {
        // 60 MiB of zeros as hex of deflate: a 124 KB file, so 200 times its size (23.7 MiB) binds before the cap.
        const hex = Buffer.from(zerosDeflated(60).toString('hex'));
        const chained = rawPdf([
          ...onePage('BT /F1 12 Tf 72 720 Td (Chain) Tj ET', '/Thumb 5 0 R '),
          streamBody('/Filter [/ASCIIHexDecode /FlateDecode]', hex),
        ]);
        await refused(
          small.intake(chained),
          /^The PDF inflates to more than 23\.\d MiB \(limit: 200 times its size, at least 16 MiB, at most 32 MiB\)\.$/,
        );
        const fine = rawPdf([
          ...onePage('BT /F1 12 Tf 72 720 Td (Chain) Tj ET', '/Thumb 5 0 R '),
          streamBody('/Filter [/ASCIIHexDecode /FlateDecode]', Buffer.from(zerosDeflated(8).toString('hex'))),
        ]);
        assert.equal((await small.intake(fine)).pages.length, 1);
      } finally {
        await small.close();
      }
    });

    it('parses on a thread: the seconds of pdf-lib work on 100 000 objects cost this thread next to nothing', async () => {
      const pdf = manyObjects(100_000);
      const { result, here, all } = await cpuShare(() => threads.intake(pdf));
      assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
      assert.ok(here < all / 4, `this thread spent ${Math.round(here)} ms of CPU of the ${Math.round(all)} ms the parse cost`);
    });

    it('refuses deep nesting, and the warnings pdf-lib prints on the way stay on its thread', async () => {
      const written: string[] = [];
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        written.push(String(chunk));
        return write.call(process.stderr, chunk, ...rest);
      }) as typeof process.stderr.write;
      try {
        await refused(threads.intake(rawPdf([...onePage('BT ET', '/Deep 5 0 R '), '[(unbalanced'])), /objects that cannot be read/);
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        process.stderr.write = write;
      }
      assert.deepEqual(
        written.filter((text) => text.includes('invalid object')),
        [],
      );
      await refused(
        threads.intake(deeplyNested(100_000)),
        /^The PDF has objects that cannot be read \(malformed or nested too deeply\)\.$/,
      );
      await refused(threads.intake(deeplyNested(1_000)), /^The PDF nests objects more than 256 levels deep\.$/);
      assert.equal((await threads.intake(deeplyNested(50))).pages.length, 1, 'a shallow nesting is fine');
    });

    it('refuses a page tree that claims a million pages, and 3 000 real pages', async () => {
      await refused(threads.intake(manyPages(1, 1_000_000)), /^The PDF has more than 2000 pages \(its page tree claims 1000000\)\.$/);
      await refused(threads.intake(manyPages(3_000)), /^The PDF has more than 2000 pages \(its page tree claims 3000\)\.$/);
      await refused(threads.intake(manyPages(3_000, 1_500)), /^The PDF has more than 2000 pages\.$/);
      assert.equal((await threads.intake(manyPages(2_000))).pages.length, 2000, 'the limit itself is fine');
      await refused(threads.intake(manyPages(3, 2)), /page tree is malformed: a node claims 2 pages and holds 3/);
    });

    it('refuses more objects than the limit', async () => {
      const few = createPdfThreads({ size: 1, limits: { maxObjects: 100 } });
      try {
        await refused(few.intake(manyObjects(200)), /^The PDF has more than 100 objects \(it has 205\)/);
        assert.equal((await few.intake(manyObjects(50))).pages.length, 1);
        // Counted before parsing: pdf-lib would stop at the end of the data and quietly drop the stream.
        const claim = rawPdf([...onePage('BT ET', '/Thumb 5 0 R '), streamBody('/Type /ObjStm /N 10000000 /First 4', Buffer.from('6 0 '))]);
        await refused(few.intake(claim), /^The PDF has more than 100 objects \(it has 10000005\)\.$/);
      } finally {
        await few.close();
      }
    });

    it('refuses a job past its time limit, and the thread that ran it is replaced', async () => {
      const nda = await buildSampleNda();
      // 400 000 objects take several seconds to parse on an idle machine, the NDA a few dozen milliseconds.
      const slow = manyObjects(400_000);
      const hurried = createPdfThreads({ size: 1, limits: { timeMs: 2000 } });
      try {
        assert.equal((await hurried.intake(nda.pdf)).pages.length, 1, 'a quick job passes');
        await refused(hurried.intake(slow), /^The PDF took longer than 2 s to check\.$/);
        assert.equal((await hurried.intake(nda.pdf)).pages.length, 1, 'the next job is served');
      } finally {
        await hurried.close();
      }
    });

    it('refuses a PDF whose thread runs out of memory, and serves the next job', async () => {
      // 128 MB: enough for a thread to start on Node 24 (which loads tsx inside the thread), not for this PDF.
      const small = createPdfThreads({ size: 1, limits: { memoryMb: 128, timeMs: 120_000 } });
      try {
        await refused(small.intake(manyObjects(150_000)), /^The PDF needs more than 128 MB of memory to read\.$/);
        const nda = await buildSampleNda();
        assert.equal((await small.intake(nda.pdf)).pages.length, 1);
      } finally {
        await small.close();
      }
    });

    it('queues jobs past its threads, and the wait does not count toward the time limit', async () => {
      // The limit is set from this machine's own speed, measured here: four times the slowest of three
      // jobs on one thread, so each job is well within it even when the machine is busier a moment
      // later. Jobs are then queued on one thread until waiting for the others took longer than the
      // limit: each one still passes, since only its own run counts.
      const pdf = manyObjects(40_000);
      const probe = createPdfThreads({ size: 1 });
      let jobMs = 0;
      try {
        await probe.intake((await buildSampleNda()).pdf);
        for (let round = 0; round < 3; round += 1) {
          const before = performance.now();
          await probe.intake(pdf);
          jobMs = Math.max(jobMs, performance.now() - before);
        }
      } finally {
        await probe.close();
      }
      const limitMs = Math.ceil(jobMs * 4);
      const one = createPdfThreads({ size: 1, limits: { timeMs: limitMs } });
      try {
        await one.intake((await buildSampleNda()).pdf);
        let ms = 0;
        let queued = 0;
        for (let count = 6; ms <= limitMs && count <= 48; count *= 2) {
          const started = performance.now();
          const results = await Promise.all(Array.from({ length: count }, () => one.intake(pdf)));
          ms = performance.now() - started;
          queued = count;
          for (const result of results) assert.equal(result.pages.length, 1);
        }
        assert.ok(ms > limitMs, `${queued} jobs one after another took ${Math.round(ms)} ms, more than the ${limitMs} ms limit`);
      } finally {
        await one.close();
      }
    });
  });
});
