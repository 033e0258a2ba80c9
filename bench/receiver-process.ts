// The webhook benchmark's HTTPS receiver in a process of its own, as a real receiver is: it answers
// on its own core instead of sharing the service's event loop. bench/webhooks.ts forks it and asks
// it over IPC what arrived; the bare reference loop posts to this same process.
import { Receiver } from '../test/receiver';

export type ReceiverRequest =
  | { type: 'start'; tls: { key: string; cert: string } }
  | { type: 'reset' }
  | { type: 'count' }
  | { type: 'report' };

export interface ReceiverReport {
  url: string;
  /** X-Webhook-Id of each accepted request, in arrival order (repeats included). */
  ids: string[];
  lastAt: number;
  /** TLS handshakes, and how many of them resumed an earlier session. */
  connections: number;
  resumed: number;
  maxInFlight: number;
}

let receiver: Receiver | undefined;

function report(): ReceiverReport {
  const r = receiver!;
  return {
    url: r.url,
    ids: r.received.map((entry) => String(entry.headers['x-webhook-id'])),
    lastAt: Math.max(0, ...r.received.map((entry) => entry.at)),
    connections: r.connections,
    resumed: r.resumed,
    maxInFlight: r.maxInFlight,
  };
}

process.on('message', async (request: ReceiverRequest) => {
  switch (request.type) {
    case 'start':
      receiver = await new Receiver(request.tls).start();
      process.send!({ url: receiver.url });
      break;
    case 'reset':
      // Closes every connection too, so the next sender starts from a fresh TLS handshake.
      await receiver!.stop();
      receiver!.received.length = 0;
      Object.assign(receiver!, { connections: 0, resumed: 0, maxInFlight: 0 });
      await receiver!.start();
      process.send!({ url: receiver!.url });
      break;
    case 'count':
      process.send!({ total: receiver!.received.length, unique: new Set(receiver!.received.map((e) => e.headers['x-webhook-id'])).size });
      break;
    case 'report':
      process.send!(report());
      break;
  }
});
process.on('disconnect', () => process.exit(0));
