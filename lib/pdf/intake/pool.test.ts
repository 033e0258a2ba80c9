import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSampleNda } from '../samples';
import { createPdfThreads } from './pool';

describe('PDF threads: the bulk lane', () => {
  it('serves a waiting interactive job before every bulk job that waits, whenever they came', async () => {
    const threads = createPdfThreads({ size: 1 });
    try {
      const { pdf } = await buildSampleNda();
      // The thread is up before the race starts: its first job is not part of it.
      await threads.intake(pdf);
      const done: string[] = [];
      const bulk = threads.forBulk();
      const jobs = [1, 2, 3, 4].map((n) => bulk.intake(pdf).then(() => done.push(`bulk ${n}`)));
      // Posted after four bulk jobs, while the first of them holds the one thread.
      jobs.push(threads.intake(pdf).then(() => done.push('interactive')));
      await Promise.all(jobs);
      assert.deepEqual(done, ['bulk 1', 'interactive', 'bulk 2', 'bulk 3', 'bulk 4']);
    } finally {
      await threads.close();
    }
  });

  it('ends the waiting jobs of both lanes on close', async () => {
    const threads = createPdfThreads({ size: 1 });
    const { pdf } = await buildSampleNda();
    const waiting = [threads.forBulk().intake(pdf), threads.forBulk().intake(pdf), threads.intake(pdf)].map((job) =>
      job.then(
        () => 'done',
        (error: Error) => error.message,
      ),
    );
    await threads.close();
    assert.deepEqual(await Promise.all(waiting), Array(3).fill('The PDF threads are closed.'));
  });
});
