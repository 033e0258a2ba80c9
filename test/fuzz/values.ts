// The values the fuzzer sends, by topic: hostile strings and JSON (hostile.ts), values for a JSON
// Schema (schema-values.ts), raw texts on the wire (encodings.ts), and a seeded shuffle.

export { type FormPart, JSON_TRICKS, jsonText, MULTIPART_FLAWS, multipartBody, RAW_SEGMENTS, segment } from './encodings';
export { hostileJson, hostileString, nested } from './hostile';
export { type JsonSchema, type Material, mutated, plausible } from './schema-values';

/** A seeded pseudo-random generator (mulberry32), for shuffling the requests of one seed the same way. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
