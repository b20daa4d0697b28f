// data.csv of an access package: one row per attribute value (and per file, naming its entry in the
// ZIP), and one per answer given for a manual system, for a subject who opens their data in a spreadsheet. Every field quoted (RFC 4180); a value a
// spreadsheet would run as a formula (=, +, -, @, tab or carriage return first) is prefixed with ' so
// that opening the file never executes anything.
// The header row is in the subject's language (src/i18n/); the values are as stored.
import { translate } from '../i18n/catalogue.ts';
import type { AccessPackage } from '../privacy-requests/rules/access-package.ts';
import { fileEntryName } from './report.ts';

const HEADER = ['csv.datastore', 'csv.entity_type', 'csv.entity_id', 'csv.attribute', 'csv.value'] as const;

function cell(value: string): string {
  const inert = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${inert.replace(/"/g, '""')}"`;
}

export function renderDataCsv(accessPackage: AccessPackage, language: string): string {
  const rows: string[][] = [HEADER.map((key) => translate(language, key))];
  for (const datastore of accessPackage.datastores) {
    for (const entity of datastore.entities) {
      for (const attribute of entity.attributes)
        rows.push([datastore.name, entity.name, entity.id, attribute.name, attribute.value ?? '']);
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
