/** What one PDF may cost the service to check and normalise; past any of them it is refused (422 invalid_pdf). */
export interface IntakeLimits {
  /** Wall-clock time of one check on its thread, queueing not counted. */
  timeMs: number;
  /** JavaScript heap of the checking thread (V8 old generation), in MB. */
  memoryMb: number;
  /** Bytes that all the PDF's compressed streams may inflate to, together. */
  maxInflatedBytes: number;
  /** Inflated bytes allowed per byte of the file (the floor MIN_INFLATE_ALLOWANCE still applies). */
  maxInflateRatio: number;
  /** Indirect objects, counting those inside object streams. */
  maxObjects: number;
  /** Pages in the page tree. */
  maxPages: number;
}

const MIB = 1024 * 1024;

/** A small PDF may always inflate this much: a one-page scan can be 50 times its file size without harm. */
export const MIN_INFLATE_ALLOWANCE = 16 * MIB;

export const DEFAULT_INTAKE_LIMITS: IntakeLimits = {
  // A 2 000-page contract normalises in about a second; ten covers a slow machine, not a parser loop.
  timeMs: 10_000,
  // pdf-lib keeps every object in the heap: 500 000 objects fit in well under 512 MB.
  memoryMb: 512,
  // Text and images compress 2 to 20 times; 256 MiB inflated is a very large contract, and it bounds the
  // bytes pdf-lib holds while it decodes object streams (outside the heap limit above).
  maxInflatedBytes: 256 * MIB,
  // Real documents stay far below 200 times; zeros deflate about 1 000 times, so a bomb stops early.
  maxInflateRatio: 200,
  // pdf-lib builds a JavaScript object for each; a 2 000-page document rarely needs 100 000.
  maxObjects: 500_000,
  // A signing flow with more pages is no longer read by anyone; pages also drive the cost of the seal.
  maxPages: 2_000,
};

/** The inflated bytes a file of this size may reach: ratio × size, at least the floor, at most the cap. */
export function inflateBudget(fileSize: number, limits: IntakeLimits): number {
  return Math.min(limits.maxInflatedBytes, Math.max(MIN_INFLATE_ALLOWANCE, Math.floor(fileSize * limits.maxInflateRatio)));
}

/** "256 MiB", "1.5 MiB", "900 KiB": sizes in the messages a caller reads. */
export function formatBytes(bytes: number): string {
  if (bytes >= MIB) return `${+(bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** "10 s", "250 ms". */
export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

/** Limits with the caller's overrides, each checked to be a positive number. */
export function resolveLimits(overrides: Partial<IntakeLimits> = {}): IntakeLimits {
  const limits = { ...DEFAULT_INTAKE_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`intake limit ${name} must be a positive number`);
  }
  return limits;
}
