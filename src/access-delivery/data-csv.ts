// data.csv of an access package: one row per attribute value (and per file, naming its entry in the
// ZIP), and one per answer given for a manual system, for a subject who opens their data in a spreadsheet. Every field quoted (RFC 4180); a value a
// spreadsheet would run as a formula (=, +, -, @, tab or carriage return first) is prefixed with ' so
// that opening the file never executes anything.
// The header row is in the subject's language (src/i18n/); the values are as stored, but a date-time, which
// is written as the same moment in the person's local time (ISO 8601 with that zone's offset, still read
// by every spreadsheet and parser): a person must not have to convert from UTC to know when something was.
import { translate } from '../i18n/catalogue.ts';
import type { AccessPackage } from '../privacy-requests/rules/access-package.ts';
import { fileEntryName, ISO_DATE_TIME } from './report.ts';

const HEADER = ['csv.datastore', 'csv.entity_type', 'csv.entity_id', 'csv.attribute', 'csv.value'] as const;

function cell(value: string): string {
  const inert = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${inert.replace(/"/g, '""')}"`;
}

/** `value`'s moment as ISO 8601 in `timeZone`, with its offset: `2026-01-03T00:04:00+01:00`. */
export function localIsoDateTime(value: string, timeZone: string): string {
  if (!ISO_DATE_TIME.test(value)) return value;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) return value;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  ) as Record<string, string>;
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
  const millis = at.getUTCMilliseconds();
  const fraction = millis ? `.${String(millis).padStart(3, '0')}` : '';
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${fraction}${offset}`;
}

export function renderDataCsv(accessPackage: AccessPackage, language: string, timeZone = 'UTC'): string {
  const rows: string[][] = [HEADER.map((key) => translate(language, key))];
  for (const datastore of accessPackage.datastores) {
    for (const entity of datastore.entities) {
      for (const attribute of entity.attributes)
        rows.push([
          datastore.name,
          entity.name,
          entity.id,
          attribute.name,
          attribute.value === null ? '' : localIsoDateTime(attribute.value, timeZone),
        ]);
      for (const file of entity.files)
        rows.push([
          datastore.name,
          entity.name,
          entity.id,
          file.name,
          fileEntryName(datastore.name, entity.id, file.name, file.fileName),
        ]);
    }
  }
  // What people looked up by hand in systems without an API: the system's name stands for the datastore.
  for (const system of accessPackage.manual_systems ?? []) {
    for (const [name, value] of Object.entries(system.data)) rows.push([system.name, '', '', name, value]);
  }
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}
