/**
 * ISO 8601 durations of fixed length (`PT30S`, `P2D`, `P1W`, `P1DT12H`): weeks, days, hours, minutes
 * and seconds (fractions of seconds allowed). Years and months have no fixed length, so they are refused
 * rather than guessed. Answers milliseconds, or null for anything else.
 */
const DURATION = /^P(?!$)(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,3})?)S)?)?$/;

export function durationMs(text: string): number | null {
  const match = DURATION.exec(text);
  if (!match) return null;
  const [, weeks, days, hours, minutes, seconds] = match;
  const n = (value: string | undefined) => (value ? Number(value.replace(',', '.')) : 0);
  const ms = ((((n(weeks) * 7 + n(days)) * 24 + n(hours)) * 60 + n(minutes)) * 60 + n(seconds)) * 1000;
  return Number.isSafeInteger(Math.round(ms)) ? Math.round(ms) : null;
}

export const DURATION_PATTERN = DURATION.source;
