import { Delivery } from '../../db/models';
import {
  type AttemptRecord,
  checkedTarget,
  type DeliveryContext,
  type DeliveryDeps,
  dropDelivery,
  goneReason,
  outcomeOf,
  type PostResult,
  recordAttempts,
  secretsOf,
  send,
  signedRequest,
} from './delivery';
import { agentFor } from './pools';
import type { RelayDeps } from './relay-deps';
import { type SigningKey, signingKey } from './signature';
import type { Target } from './targets';

export type FirstAttemptDeps = RelayDeps & { delivery: DeliveryDeps; concurrency: number };

type Checked = { target: Target } | { refused: PostResult };
type HandOff = { delivery: Delivery; attemptsMade: number };

/** What one round took, for its timing line (debug, `outbox relay round`). */
export interface RoundTiming {
  deliveries: number;
  /** When its last answer came (epoch ms), and how long its records and hand-offs then took to write. */
  postedAt: number;
  recordMs: number;
  handedOff: number;
}

/** A batch of deliveries: its attempts are recorded together, in one statement, once all are made. */
export class Round {
  readonly records: AttemptRecord[] = [];
  readonly handOffs: HandOff[] = [];
  /** Every attempt of the round made (or handed off untried). */
  readonly posted: Promise<void>;
  /** Its records written and its failures handed to retry workflows; rejects when that failed. */
  readonly done: Promise<RoundTiming>;
  private left = 1;
  /** Each target's secrets, decrypted and made HMAC keys once a round rather than once a request. */
  private readonly secrets = new Map<string, SigningKey[]>();
  private settle!: () => void;

  constructor(
    deps: FirstAttemptDeps,
    readonly deliveries: number,
    /** Each endpoint checked once per round (a host may have moved to a private address since). */
    readonly checks = new Map<string, Promise<Checked>>(),
    /** Endpoints that did not answer at all (refused, reset, timed out): the rest of the round goes to retry workflows untried. */
    readonly unreachable = new Set<string>(),
  ) {
    this.posted = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.done = this.posted.then(async () => {
      const [postedAt, posted] = [Date.now(), performance.now()];
      await recordAttempts(deps.db, this.records);
      await handOff(deps, this.handOffs);
      return { deliveries, postedAt, recordMs: performance.now() - posted, handedOff: this.handOffs.length };
    });
    this.done.catch(() => undefined); // awaited by FirstAttempts.finish(); not an unhandled rejection meanwhile
  }

  secretsOf(context: DeliveryContext, key: Buffer): SigningKey[] {
    const { target_kind, target_id } = context.delivery;
    const id = `${target_kind} ${target_id}`;
    const secrets = this.secrets.get(id) ?? secretsOf(context, key).map(signingKey);
    this.secrets.set(id, secrets);
    return secrets;
  }

  begin(): void {
    this.left += 1;
  }

  end(): void {
    this.left -= 1;
    if (this.left === 0) this.settle();
  }
}

interface Item {
  context: DeliveryContext;
  round: Round;
}

/** An endpoint's lanes in one relay run: at most `concurrency` requests in flight, fed from one queue. */
interface Endpoint {
  queue: Item[];
  lanes: number;
}

/**
 * The first attempt of every delivery the relay takes, made here in rounds rather than by a workflow
 * per delivery. Deliveries are queued per endpoint; each endpoint has at most `concurrency` requests
 * in flight over its keep-alive pool (pools.ts: connections and TLS sessions carried over from run to
 * run), and its lanes go from one round's deliveries straight on to the next's, so the relay can move
 * the next batch, and write the last one's records, while this one posts. A delivery that succeeds is
 * done; one that fails gets a retry workflow (DESIGN's backoff) that goes on from attempt 2. Once an
 * endpoint fails to answer at all, the rest of its round, and once the run has used its budget
 * (`deadline`), every delivery left, is handed to retry workflows without an attempt here, so one dead
 * receiver cannot hold up the others or the relay.
 *
 * At least once: a crash after a POST and before its round's record makes that attempt again, as a
 * retried activity would; an attempt already recorded is never made twice by the relay, it is handed
 * off instead.
 */
export class FirstAttempts {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly rounds: Round[] = [];

  constructor(
    private readonly deps: FirstAttemptDeps,
    private readonly deadline: number,
  ) {}

  /** Starts the first attempts of a batch of deliveries (with their events and targets). */
  async take(contexts: DeliveryContext[]): Promise<Round> {
    const round = new Round(this.deps, contexts.length);
    this.rounds.push(round);
    for (const context of contexts) {
      if (!(await stillNew(this.deps, context, round.handOffs))) continue;
      const { url } = context.delivery;
      if (!round.checks.has(url)) round.checks.set(url, checkedTarget(url, this.deps.delivery.allowedHosts));
      const endpoint = this.endpoints.get(url) ?? { queue: [], lanes: 0 };
      this.endpoints.set(url, endpoint);
      round.begin();
      endpoint.queue.push({ context, round });
      while (endpoint.lanes < Math.min(this.deps.concurrency, endpoint.queue.length)) {
        endpoint.lanes += 1;
        void this.lane(endpoint);
      }
    }
    round.end();
    return round;
  }

  /** Waits for every round's records and hand-offs; throws when one of them failed. */
  async finish(): Promise<void> {
    await Promise.all(this.rounds.map((round) => round.done));
  }

  private async lane(endpoint: Endpoint): Promise<void> {
    try {
      for (let item = endpoint.queue.shift(); item; item = endpoint.queue.shift()) await this.attempt(item);
    } finally {
      endpoint.lanes -= 1;
    }
  }

  private async attempt({ context, round }: Item): Promise<void> {
    const { delivery } = context;
    try {
      if (round.unreachable.has(delivery.url) || Date.now() > this.deadline) {
        round.handOffs.push({ delivery, attemptsMade: 0 });
        return;
      }
      const startedAt = new Date();
      const checked = await round.checks.get(delivery.url)!;
      // A refused target is recorded as the delivery's attempt, exactly as a retry workflow records it.
      const result =
        'refused' in checked
          ? checked.refused
          : await send(
              this.deps.delivery,
              checked.target,
              signedRequest(context, this.deps.delivery.secret, round.secretsOf(context, this.deps.delivery.secret)),
              agentFor(checked.target, this.deps.concurrency),
            );
      round.records.push({ deliveryId: delivery.id, attempt: 1, startedAt, result });
      if (!outcomeOf(result).delivered) round.handOffs.push({ delivery, attemptsMade: 1 });
      if (result.statusCode === undefined) round.unreachable.add(delivery.url);
    } catch {
      // Signing or checking failed (not the post, which answers every failure): a retry workflow tries it again.
      round.handOffs.push({ delivery, attemptsMade: 0 });
    } finally {
      round.end();
    }
  }
}

/**
 * Whether a delivery still wants its first attempt. One already done is marked handed off, one whose
 * target is gone is dropped, and one a crashed run already attempted is handed off as it stands.
 */
async function stillNew(deps: FirstAttemptDeps, context: DeliveryContext, handOffs: HandOff[]): Promise<boolean> {
  const { delivery } = context;
  if (delivery.status !== 'pending') {
    await Delivery.query(deps.db).findById(delivery.id).whereNull('workflow_started_at').patch({ workflow_started_at: new Date() });
    return false;
  }
  const gone = goneReason(context);
  if (gone) {
    await dropDelivery(deps.db, delivery.id, gone);
    return false;
  }
  if (delivery.attempts > 0) {
    handOffs.push({ delivery, attemptsMade: delivery.attempts });
    return false;
  }
  return true;
}

/** Starts the deliveries' retry workflows (joining any a crashed run started), then marks them handed off in one statement. */
async function handOff(deps: FirstAttemptDeps, handOffs: HandOff[]): Promise<void> {
  if (handOffs.length === 0) return;
  for (let i = 0; i < handOffs.length; i += 50)
    await Promise.all(handOffs.slice(i, i + 50).map(({ delivery, attemptsMade }) => deps.workflows.startDelivery(delivery, attemptsMade)));
  await Delivery.query(deps.db)
    .whereIn(
      'id',
      handOffs.map(({ delivery }) => delivery.id),
    )
    .whereNull('workflow_started_at')
    .patch({ workflow_started_at: new Date() });
}
