const INSTANT_PARTS = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hourCycle: 'h23',
});

/**
 * A moment to the millisecond in ISO 8601 (UTC), "2026-05-06T07:08:09.123Z": what the certificate
 * page and the mails that report a signature print (the same text as Date#toISOString for years
 * 1000–9999). ISO 8601 has no language, so no catalogue message orders its parts; they come from
 * Intl.DateTimeFormat like formatMoment's.
 */
export function formatInstant(date: Date): string {
  const parts = Object.fromEntries(INSTANT_PARTS.formatToParts(date).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${parts.fractionalSecond}Z`;
}
