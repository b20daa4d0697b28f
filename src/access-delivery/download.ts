// Answers a download link: the access package as a ZIP built while it streams (yazl), holding report.html,
// data.json and the subject's files, each file read chunk by chunk from the datastore. Every download is
// audited (the request id and the entries, never a value); a HEAD is not a download and is not audited
// (checkPackageDownload). An unknown or expired token is a 404 that
// tells nothing more.
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { appendAudit, type AuditOrigin } from '../audit/audit-log.ts';
import { datastoreRepository } from '../datastore/admin-repository.ts';
import { findFile, readFile } from '../datastore/file-store.ts';
import { notFound } from '../errors.ts';
import { readPrivacyCenterSettings } from '../privacy-center-settings/settings.ts';
import { packagedAttachments } from '../notes/service.ts';
import { type AccessPackage, readAccessPackage } from '../privacy-requests/rules/access-package.ts';
import { privacyRequestRepository } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { hashToken } from './completion.ts';
import { isLanguage } from '../i18n/catalogue.ts';
import { timeZoneOf } from '../deadlines/locations.ts';
import { renderDataCsv } from './data-csv.ts';
import { fileEntryName, renderAccessReport } from './report.ts';
import { EMPTY_DISCLOSURE, reportDisclosures } from '../disclosure/service.ts';
import { accessLinkRepository as repo } from './repository.ts';

/**
 * The zone a person's report writes its moments in: where the person said they live, as the law's clock
 * reads it (the location's own zone where Lethe knows it, `Europe/Paris` for `FR`; else its rule's,
 * `America/Los_Angeles` for `US-CA`). Without a location nobody said where the person is, and a rule that
 * spans zones counts in its most conservative one (the EU's is Reunion's), which is no one's local time:
 * the installation's LETHE_TIME_ZONE then, the organisation's own.
 */
export function reportTimeZone(
  request: { location: string | null; jurisdiction: string | null } | undefined,
  installationZone: string,
): string {
  if (!request?.location || !request.jurisdiction) return installationZone;
  return timeZoneOf(request.location, request.jurisdiction);
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const GONE = 'This download link is unknown or has expired.';

export interface PackageDownload {
  privacyRequestId: string;
  stream: Readable;
}

/**
 * The request a live download link serves; 404 otherwise. Reads nothing of the package and audits
 * nothing: a HEAD (a link checker, a mail scanner) is answered from this alone, so that only a real
 * download appears in the audit log.
 */
export async function checkPackageDownload(
  services: Pick<Services, 'db'>,
  token: string,
): Promise<{ privacyRequestId: string }> {
  if (!TOKEN_SHAPE.test(token)) throw notFound(GONE, { key: 'refusal.download_gone' });
  const privacyRequestId = await repo.liveRequest(services.db, hashToken(token));
  // A link outlives nothing: it works while its request is complete.
  const request = privacyRequestId
    ? await privacyRequestRepository.find(services.db, privacyRequestId)
    : undefined;
  if (!privacyRequestId || request?.status !== 'complete')
    throw notFound(GONE, { key: 'refusal.download_gone' });
  return { privacyRequestId };
}

export async function openPackageDownload(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
  token: string,
  audit: AuditOrigin,
): Promise<PackageDownload> {
  const { privacyRequestId } = await checkPackageDownload(services, token);
  const settings = await readPrivacyCenterSettings(services.db);
  const accessPackage: AccessPackage = (await readAccessPackage(services, privacyRequestId)) ?? {
    privacy_request_id: privacyRequestId,
    policy_key: '',
    generated_at: new Date().toISOString(),
    rules: [],
    datastores: [],
  };
  const files = accessPackage.datastores.flatMap((datastore) =>
    datastore.entities.flatMap((entity) =>
      entity.files.map((file) => ({ datastore: datastore.name, entityId: entity.id, file })),
    ),
  );
  await appendAudit(services.db, {
    action: 'access-package.download',
    actor: 'subject:download-link',
    ...audit,
    details: {
      privacy_request_id: privacyRequestId,
      datastores: accessPackage.datastores.map((datastore) => datastore.name),
      entities: accessPackage.datastores.reduce((sum, datastore) => sum + datastore.entities.length, 0),
      files: files.length,
    },
  });

  const zip = new yazl.ZipFile();
  const mtime = new Date(accessPackage.generated_at);
  const labels = await datastoreRepository.labels(
    services.db,
    accessPackage.datastores.map((datastore) => datastore.name),
  );
  const request = await privacyRequestRepository.find(services.db, privacyRequestId);
  const disclosures = await reportDisclosures(
    services.db,
    accessPackage.datastores.map((datastore) => datastore.name),
    request?.policy_id,
  );
  // The package is written in the subject's language, as every message about the request is.
  const language = isLanguage(request?.language) ? request.language : services.config.defaultLanguage;
  const timeZone = reportTimeZone(request, services.config.timeZone);
  const report = renderAccessReport(accessPackage, settings.organization_name, {
    language,
    timeZone,
    labels,
    disclosures,
  });
  // data.json carries the same disclosures as the report, per datastore and per receiver (art. 15(1), 20).
  const data = {
    ...accessPackage,
    datastores: accessPackage.datastores.map((datastore) => ({
      ...datastore,
      disclosure: disclosures.datastores.get(datastore.name) ?? EMPTY_DISCLOSURE,
    })),
    receivers: [...disclosures.connections].map(([connection, disclosure]) => ({ connection, disclosure })),
  };
  zip.addBuffer(Buffer.from(report), 'report.html', { mtime });
  zip.addBuffer(Buffer.from(`${JSON.stringify(data, null, 2)}\n`), 'data.json', { mtime });
  zip.addBuffer(Buffer.from(renderDataCsv(accessPackage, language, timeZone)), 'data.csv', { mtime });
  for (const { datastore, entityId, file } of files) {
    const stored = await findFile(services.db, services.keyring, datastore, entityId, file.name);
    // A file erased since the package was made is simply not in the ZIP (data.json still lists it).
    if (!stored) continue;
    zip.addReadStream(
      readFile(services.db, services.keyring, datastore, stored),
      fileEntryName(datastore, entityId, file.name, file.fileName),
      { mtime, size: stored.size },
    );
  }
  // Attachments an operator flagged for the subject, under attachments/ (names made safe for a ZIP entry).
  for (const [index, attachment] of (await packagedAttachments(services, privacyRequestId)).entries()) {
    const safeName = attachment.fileName.replace(/[^\w. -]/g, '_').slice(0, 200) || 'attachment';
    zip.addReadStream(attachment.open(), `attachments/${index + 1}-${safeName}`, {
      mtime,
      size: attachment.size,
    });
  }
  zip.end();
  return { privacyRequestId, stream: zip.outputStream as Readable };
}
