// Dates as a reader of the language writes them, with the time zone always named (a deadline read in
// another zone is a different day): "29. Dezember 2026 um 03:45 UTC", "29 December 2026 (UTC)". Through
// Intl, whose data for each language ships with Node.
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(language: string, timeZone: string, withTime: boolean): Intl.DateTimeFormat {
  const id = `${language} ${timeZone} ${withTime}`;
  let format = formats.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(language, {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      timeZone,
      timeZoneName: 'short',
      ...(withTime ? { hour: 'numeric', minute: '2-digit' } : {}),
    });
    formats.set(id, format);
  }
  return format;
}

/** A moment to the minute, in words, with its zone: "December 29, 2026 at 3:45 AM UTC". */
export function formatInstant(language: string, at: Date, timeZone = 'UTC'): string {
  return formatOf(language, timeZone, true).format(at);
}

/** A day, in words, with the zone it is counted in: "December 29, 2026 (UTC)". */
export function formatDay(language: string, at: Date, timeZone = 'UTC'): string {
  const parts = formatOf(language, timeZone, false).formatToParts(at);
  const zone = parts.find((part) => part.type === 'timeZoneName')?.value ?? timeZone;
  // The zone's name and the words that join it to the date are left out, then given in brackets.
  const dateParts = parts.filter((part) => part.type !== 'timeZoneName');
  while (dateParts.length > 0 && dateParts.at(-1)?.type === 'literal') dateParts.pop();
  return `${dateParts.map((part) => part.value).join('')} (${zone})`;
}
