import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { type SmtpListener, startSmtpListener } from './smtp';

/** A client that greets the listener and then resets its connection (a process killed mid-conversation). */
async function resetMidConversation(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', () => resolve());
  });
  socket.write('EHLO killed.test\r\nMAIL FROM:<a@killed.test>\r\n');
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.resetAndDestroy();
}

describe('the tests’ SMTP listener', () => {
  let listener: SmtpListener;
  before(async () => {
    listener = await startSmtpListener();
  });
  after(() => listener.close());

  it('outlives a client that resets its connection (a worker killed while sending): no uncaught error, the next mail lands', async () => {
    for (let round = 0; round < 5; round++) await resetMidConversation(listener.url);
    // An error event nobody listens to would have thrown by now, failing this test with uncaughtException.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const transport = nodemailer.createTransport(listener.url);
    await transport.sendMail({ from: 'svc@example.test', to: 'after@example.test', subject: 'after', text: 'still here' });
    transport.close();
    const mail = await listener.nextMail('after@example.test');
    assert.equal(mail.subject, 'after');
  });
});
