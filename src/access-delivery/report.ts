// report.html of an access package: the subject's data readable by a person, grouped by datastore and by
// entity. Static HTML: no script (its own Content-Security-Policy forbids any), every value escaped.
// Written for a person: dates in words in the report's language (its own date and the values that are ISO
// dates), (English: neither the privacy center nor
// a request records a language yet; the locale is a parameter for when one does), each entity under the
// label its datastore gives its name and each attribute under the label of `<entity>.<attribute>`
// (PUT /v1/datastore/{name}/labels; the name itself otherwise), the
// files as links to their entries in the same ZIP (relative, so they open from the unpacked folder), and
// no sentence about files when there are none.
import type { DisclosureView } from '../disclosure/schemas.ts';
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
  /** A BCP 47 language tag for the page and its dates; English when absent. */
  locale?: string;
  /** Per datastore, the human label of each entity name and of each `<entity name>.<attribute>`. */
  labels?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** What the organisation says of each datastore, and of each receiver (connection) that holds the data. */
  disclosures?: {
    datastores: ReadonlyMap<string, DisclosureView>;
    connections: ReadonlyMap<string, DisclosureView>;
  };
}

const NOT_STATED = '<em>not stated</em>';

/** The "how we use your data" block of one source (GDPR art. 15(1)(a)-(h)). */
export function renderDisclosure(heading: string, disclosure: DisclosureView | undefined): string {
  const list = (items: readonly string[] | undefined) =>
    items && items.length > 0
      ? `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`
      : NOT_STATED;
  const text = (value: string | undefined, empty = NOT_STATED) => (value ? escapeHtml(value) : empty);
  return `<div class="use"><h3>${escapeHtml(heading)}</h3><dl>
<dt>Why we use it</dt><dd>${list(disclosure?.purposes)}</dd>
<dt>Who receives it</dt><dd>${list(disclosure?.recipients)}</dd>
<dt>How long we keep it</dt><dd>${text(disclosure?.retention)}</dd>
<dt>Where it comes from</dt><dd>${text(disclosure?.source, 'from you, or as stated above')}</dd>
<dt>Automated decisions</dt><dd>${text(disclosure?.automated_decisions, 'none')}</dd>
</dl></div>`;
}

/** A date in words, in UTC: "January 2, 2026 at 3:04 AM UTC". */
export function readableDate(iso: string, locale = 'en'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date)} UTC`;
}

/** An ISO 8601 date (`2025-03-04`) or date-time with its zone, as systems store them. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A value for a person: an ISO date or date-time in words (the ISO text kept in `datetime`; data.json and
 * data.csv keep the value as stored), anything else escaped as it is.
 */
export function readableValue(value: string, locale = 'en'): string {
  if (ISO_DATE.test(value)) {
    const date = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(date.getTime()))
      return `<time datetime="${escapeHtml(value)}">${escapeHtml(new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date))}</time>`;
  }
  if (ISO_DATE_TIME.test(value) && !Number.isNaN(new Date(value).getTime()))
    return `<time datetime="${escapeHtml(value)}">${escapeHtml(readableDate(value, locale))}</time>`;
  return escapeHtml(value);
}

export function renderAccessReport(
  accessPackage: AccessPackage,
  organizationName: string,
  options: ReportOptions = {},
): string {
  const locale = options.locale ?? 'en';
  const hasFiles = accessPackage.datastores.some((datastore) =>
    datastore.entities.some((entity) => entity.files.length > 0),
  );
  const parts: string[] = [
    '<!doctype html>',
    `<html lang="${escapeHtml(locale)}"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Your personal data held by ${escapeHtml(organizationName)}</title>`,
    `<style>${STYLE}</style></head><body><main>`,
    `<h1>Your personal data held by ${escapeHtml(organizationName)}</h1>`,
    `<p>Request <code>${escapeHtml(accessPackage.privacy_request_id)}</code>, gathered ${escapeHtml(readableDate(accessPackage.generated_at, locale))}. The same data, machine-readable, is in <code>data.json</code> (and, for a spreadsheet, <code>data.csv</code>)${hasFiles ? '; your files are in the <code>files</code> folder, linked below' : ''}.</p>`,
  ];
  const withData = accessPackage.datastores.filter((datastore) => datastore.entities.length > 0);
  const manualSystems = accessPackage.manual_systems ?? [];
  if (withData.length === 0 && manualSystems.length === 0)
    parts.push('<p>We found no personal data about you.</p>');
  for (const datastore of withData) {
    parts.push(`<section><h2>${escapeHtml(datastore.name)}</h2>`);
    parts.push(renderDisclosure('How we use your data', options.disclosures?.datastores.get(datastore.name)));
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
          `<tr><th scope="row">${escapeHtml(attributeLabel(attribute.name))}</th><td>${attribute.value === null ? '<em>empty</em>' : readableValue(attribute.value, locale)}</td></tr>`,
        );
      for (const file of entity.files)
        parts.push(
          `<tr><th scope="row">${escapeHtml(attributeLabel(file.name))}</th><td><a href="${escapeHtml(fileEntryName(datastore.name, entity.id, file.name, file.fileName))}">${escapeHtml(file.fileName)}</a> (${file.size} bytes, ${escapeHtml(file.contentType)})</td></tr>`,
        );
      if (entity.attributes.length === 0 && entity.files.length === 0)
        parts.push('<tr><td colspan="2"><em>no attributes</em></td></tr>');
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
    parts.push('<section><h2>Other systems that received your request</h2>');
    for (const [connection, disclosure] of receivers)
      parts.push(renderDisclosure(`How ${connection} uses your data`, disclosure));
    parts.push('</section>');
  }
  parts.push('</main></body></html>');
  return `${parts.join('\n')}\n`;
}
