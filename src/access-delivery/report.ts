// report.html of an access package: the subject's data readable by a person, grouped by datastore and by
// entity. Static HTML: no script (its own Content-Security-Policy forbids any), every value escaped.
// Written for a person, in the subject's language (src/i18n/): dates in its words with the zone named (its
// own date and the values that are ISO dates), each entity under the label its datastore gives its name and
// each attribute under the label of
// `<entity>.<attribute>` (PUT /v1/datastore/{name}/labels; the name itself otherwise), the
// files as links to their entries in the same ZIP (relative, so they open from the unpacked folder), and
// no sentence about files when there are none.
import type { DisclosureView } from '../disclosure/schemas.ts';
import { type MessageKey, translate } from '../i18n/catalogue.ts';
import { formatInstant } from '../i18n/dates.ts';
import { translateHtml } from '../i18n/html.ts';
import { escapeHtml } from '../validation/html.ts';
import type { AccessPackage } from '../privacy-requests/rules/access-package.ts';

const STYLE = `body{font-family:system-ui,sans-serif;line-height:1.5;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;width:100%;margin-bottom:1rem}th,td{border:1px solid #bbb;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f0f0;width:30%}h2{border-bottom:2px solid #333;margin-top:2rem}code{word-break:break-all}
td{overflow-wrap:anywhere}.use{background:#f6f8fb;border-left:4px solid #2b5797;padding:.5rem 1rem;margin:1rem 0}
.use h3{margin:.25rem 0 .5rem}.use dt{font-weight:600;margin-top:.5rem}.use dd{margin:0 0 0 1rem}.use ul{margin:.25rem 0;padding-left:1.25rem}
@media (max-width:30rem){body{margin:1rem auto}th,td{display:block;width:auto;border-bottom:none}tr{display:block;border-bottom:1px solid #bbb}}`;

export function fileEntryName(
  datastore: string,
  entityId: string,
  attribute: string,
  fileName: string,
): string {
  const safe = (value: string) => value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || '_';
  return `files/${safe(datastore)}/${safe(entityId)}/${safe(attribute)}-${safe(fileName)}`;
}

export interface ReportOptions {
  /** The language of the report (one of src/i18n/catalogues/); English when absent. */
  language?: string;
  /**
   * The IANA zone its moments are written in: the request's jurisdiction's (or its location's) zone, else
   * LETHE_TIME_ZONE (reportTimeZone in download.ts); UTC when absent. Calendar dates have no zone.
   */
  timeZone?: string;
  /** Per datastore, the human label of each entity name and of each `<entity name>.<attribute>`. */
  labels?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** What the organisation says of each datastore, and of each receiver (connection) that holds the data. */
  disclosures?: {
    datastores: ReadonlyMap<string, DisclosureView>;
    connections: ReadonlyMap<string, DisclosureView>;
  };
}

/** The "how we use your data" block of one source (GDPR art. 15(1)(a)-(h)). */
export function renderDisclosure(
  heading: string,
  disclosure: DisclosureView | undefined,
  language = 'en',
): string {
  const say = (key: MessageKey) => escapeHtml(translate(language, key));
  const notStated = `<em>${say('report.not_stated')}</em>`;
  const list = (items: readonly string[] | undefined) =>
    items && items.length > 0
      ? `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`
      : notStated;
  const text = (value: string | undefined, empty = notStated) => (value ? escapeHtml(value) : empty);
  return `<div class="use"><h3>${escapeHtml(heading)}</h3><dl>
<dt>${say('report.purposes')}</dt><dd>${list(disclosure?.purposes)}</dd>
<dt>${say('report.recipients')}</dt><dd>${list(disclosure?.recipients)}</dd>
<dt>${say('report.retention')}</dt><dd>${text(disclosure?.retention)}</dd>
<dt>${say('report.source')}</dt><dd>${text(disclosure?.source, say('report.source_default'))}</dd>
<dt>${say('report.automated_decisions')}</dt><dd>${text(disclosure?.automated_decisions, say('report.automated_decisions_none'))}</dd>
</dl></div>`;
}

/** A moment in words in the language, in its zone and naming it: "January 2, 2026 at 3:04 AM UTC". */
export function readableDate(iso: string, language = 'en', timeZone = 'UTC'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return formatInstant(language, date, timeZone);
}

/** An ISO 8601 date (`2025-03-04`) or date-time with its zone, as systems store them. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A value for a person: an ISO date or date-time in words (the ISO text kept in `datetime`; data.json and
 * data.csv keep the value as stored), anything else escaped as it is.
 */
export function readableValue(value: string, language = 'en', timeZone = 'UTC'): string {
  if (ISO_DATE.test(value)) {
    const date = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(date.getTime()))
      return `<time datetime="${escapeHtml(value)}">${escapeHtml(new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(date))}</time>`;
  }
  if (ISO_DATE_TIME.test(value) && !Number.isNaN(new Date(value).getTime()))
    return `<time datetime="${escapeHtml(value)}">${escapeHtml(readableDate(value, language, timeZone))}</time>`;
  return escapeHtml(value);
}

export function renderAccessReport(
  accessPackage: AccessPackage,
  organizationName: string,
  options: ReportOptions = {},
): string {
  const language = options.language ?? 'en';
  const timeZone = options.timeZone ?? 'UTC';
  const say = (key: MessageKey, values?: Record<string, string | number>) =>
    escapeHtml(translate(language, key, values));
  const hasFiles = accessPackage.datastores.some((datastore) =>
    datastore.entities.some((entity) => entity.files.length > 0),
  );
  const parts: string[] = [
    '<!doctype html>',
    `<html lang="${escapeHtml(language)}"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${say('report.title', { organization: organizationName })}</title>`,
    `<style>${STYLE}</style></head><body><main>`,
    `<h1>${say('report.title', { organization: organizationName })}</h1>`,
    `<p>${translateHtml(language, hasFiles ? 'report.intro_with_files' : 'report.intro', {
      text: { date: readableDate(accessPackage.generated_at, language, timeZone) },
      markup: {
        request: `<code>${escapeHtml(accessPackage.privacy_request_id)}</code>`,
        json: '<code>data.json</code>',
        csv: '<code>data.csv</code>',
        folder: '<code>files</code>',
      },
    })}</p>`,
  ];
  const withData = accessPackage.datastores.filter((datastore) => datastore.entities.length > 0);
  const manualSystems = accessPackage.manual_systems ?? [];
  if (withData.length === 0 && manualSystems.length === 0) parts.push(`<p>${say('report.no_data')}</p>`);
  for (const datastore of withData) {
    parts.push(`<section><h2>${escapeHtml(datastore.name)}</h2>`);
    parts.push(
      renderDisclosure(
        translate(language, 'report.how_we_use'),
        options.disclosures?.datastores.get(datastore.name),
        language,
      ),
    );
    const labels = options.labels?.get(datastore.name) ?? {};
    for (const entity of datastore.entities) {
      const label = Object.hasOwn(labels, entity.name) ? labels[entity.name] : undefined;
      parts.push(
        `<h3>${escapeHtml(label ?? entity.name)} <small><code>${escapeHtml(entity.id)}</code></small></h3>`,
      );
      parts.push('<table><tbody>');
      const attributeLabel = (name: string) => {
        const key = `${entity.name}.${name}`;
        return Object.hasOwn(labels, key) ? (labels[key] as string) : name;
      };
      for (const attribute of entity.attributes)
        parts.push(
          `<tr><th scope="row">${escapeHtml(attributeLabel(attribute.name))}</th><td>${attribute.value === null ? `<em>${say('report.empty')}</em>` : readableValue(attribute.value, language, timeZone)}</td></tr>`,
        );
      for (const file of entity.files)
        parts.push(
          `<tr><th scope="row">${escapeHtml(attributeLabel(file.name))}</th><td><a href="${escapeHtml(fileEntryName(datastore.name, entity.id, file.name, file.fileName))}">${escapeHtml(file.fileName)}</a> (${say('report.file', { size: file.size, type: file.contentType })})</td></tr>`,
        );
      if (entity.attributes.length === 0 && entity.files.length === 0)
        parts.push(`<tr><td colspan="2"><em>${say('report.no_attributes')}</em></td></tr>`);
      parts.push('</tbody></table>');
    }
    parts.push('</section>');
  }
  // What people looked up by hand in systems without an API (docs/human-steps.md), under each system's name.
  for (const system of manualSystems) {
    parts.push(`<section><h2>${escapeHtml(system.name)}</h2><table><tbody>`);
    for (const [name, value] of Object.entries(system.data))
      parts.push(`<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`);
    parts.push('</tbody></table></section>');
  }
  const receivers = [...(options.disclosures?.connections ?? new Map<string, DisclosureView>())];
  if (receivers.length > 0) {
    parts.push(`<section><h2>${say('report.receivers')}</h2>`);
    for (const [connection, disclosure] of receivers)
      parts.push(
        renderDisclosure(
          translate(language, 'report.how_receiver_uses', { receiver: connection }),
          disclosure,
          language,
        ),
      );
    parts.push('</section>');
  }
  parts.push('</main></body></html>');
  return `${parts.join('\n')}\n`;
}
