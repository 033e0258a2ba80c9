import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogFields, Logger } from './log';
import { bestEffort } from './temporal';

/** A logger that keeps its lines. */
function keeping(lines: Array<{ level: string; message: string; fields?: LogFields }>): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

describe('bestEffort: a wake-up that may fail', () => {
  it('never throws, and says at debug what failed and why', async () => {
    const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
    await bestEffort({ log: keeping(lines) }, 'wake-up of ofr_1', async () => {
      throw new Error('14 UNAVAILABLE: connection refused');
    });
    assert.deepEqual(lines, [
      {
        level: 'debug',
        message: 'best-effort call failed',
        fields: { what: 'wake-up of ofr_1', error: '14 UNAVAILABLE: connection refused' },
      },
    ]);
  });

  it('says nothing when the call succeeds, and waits for it', async () => {
    const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
    let done = false;
    await bestEffort({ log: keeping(lines) }, 'wake-up of xfr_1', async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      done = true;
    });
    assert.equal(done, true);
    assert.deepEqual(lines, []);
  });
});
