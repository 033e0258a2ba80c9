// How the interleaved benchmarks measure: warm-up pairs first, then rounds of the reference and the
// measured path one after the other, the order alternating per round, so a change in the machine's
// load falls on both sides of a round instead of on one side of the run. Each round gives a ratio;
// the report is the median ratio with its spread (min–max, interquartile range).

/** Measured rounds of an interleaved benchmark: BENCH_ROUNDS, else the benchmark's own default. */
export const roundsOr = (fallback: number) => whole('BENCH_ROUNDS', fallback, 1);
/** Warm-up pairs before them, not reported: BENCH_WARMUP, else the benchmark's own default. */
export const warmupOr = (fallback: number) => whole('BENCH_WARMUP', fallback, 0);

function whole(name: string, fallback: number, least: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be a whole number ≥ ${least}`);
  return value;
}

export interface Pair<R, M> {
  /** 1-based among the measured rounds. */
  round: number;
  /** Which side ran first in this round. */
  first: 'reference' | 'measured';
  reference: R;
  measured: M;
}

export interface Sides<R, M> {
  reference: () => Promise<R>;
  measured: () => Promise<M>;
  /** Untimed work a round needs before either side (a document to sign, events to write). */
  prepare?: () => Promise<void>;
  /** A pause before each side, so the previous side's background work (mail, outbox) does not land on it. */
  settleMs?: number;
  rounds: number;
  warmup: number;
  /** Called after each measured round (e.g. to print it). */
  onRound?: (pair: Pair<R, M>) => void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the warm-up pairs, then the measured rounds; answers the measured rounds' pairs. */
export async function interleave<R, M>(sides: Sides<R, M>): Promise<Array<Pair<R, M>>> {
  const { rounds, warmup } = sides;
  const pairs: Array<Pair<R, M>> = [];
  const run = async <T>(side: () => Promise<T>) => {
    if (sides.settleMs) await pause(sides.settleMs);
    return await side();
  };
  for (let i = 0; i < warmup + rounds; i += 1) {
    await sides.prepare?.();
    // Even rounds start with the reference, odd ones with the measured path: a steady drift cancels.
    const first = i % 2 === 0 ? 'reference' : 'measured';
    let reference: R;
    let measured: M;
    if (first === 'reference') {
      reference = await run(sides.reference);
      measured = await run(sides.measured);
    } else {
      measured = await run(sides.measured);
      reference = await run(sides.reference);
    }
    if (i < warmup) continue;
    const pair = { round: i - warmup + 1, first, reference, measured } as const;
    pairs.push(pair);
    sides.onRound?.(pair);
  }
  return pairs;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** First and third quartile (linear interpolation between the sorted values). */
  q1: number;
  q3: number;
  n: number;
}

function quantile(sorted: number[], p: number): number {
  const at = (sorted.length - 1) * p;
  const below = Math.floor(at);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - below);
}

export function spread(values: number[]): Spread {
  if (values.length === 0) throw new Error('no values to spread');
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    n: sorted.length,
  };
}

/**
 * A ratio with its spread: `2.10x (1.95–2.31, IQR 2.02–2.20, n=9)`, or as a percentage
 * `45% (41–49%, IQR 43–47%, n=9)`.
 */
export function formatRatio(ratio: Spread, as: 'x' | '%' = 'x'): string {
  const f = as === 'x' ? (value: number) => value.toFixed(2) : (value: number) => (value * 100).toFixed(0);
  const unit = as === 'x' ? 'x' : '%';
  return `${f(ratio.median)}${unit} (${f(ratio.min)}–${f(ratio.max)}${unit}, IQR ${f(ratio.q1)}–${f(ratio.q3)}${unit}, n=${ratio.n})`;
}

/** The per-round ratios of a run's pairs, with their spread. */
export function ratios<R, M>(pairs: Array<Pair<R, M>>, ratio: (pair: Pair<R, M>) => number): Spread {
  return spread(pairs.map(ratio));
}

/** The median of one side's figure over the rounds. */
export function middle<R, M>(pairs: Array<Pair<R, M>>, figure: (pair: Pair<R, M>) => number): number {
  return spread(pairs.map(figure)).median;
}
