// Shared pieces of the privacy-center tests: a real SMTP server (smtp-server) on 127.0.0.1 that keeps every
// mail it receives, readers for the code and the download link in a mail, and the settings that publish
// the default access and erasure policies.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import yauzl, { type Entry } from 'yauzl';
import type { Config } from '../../src/config.ts';
import type { TestService } from './service.ts';
import { engineConfig } from '../privacy-requests/support.ts';

export interface CapturedMail {
  from: string;
  to: string[];
  /** The raw message with quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface MailServer {
  port: number;
  mails: CapturedMail[];
  mailsTo(address: string): CapturedMail[];
  waitFor(predicate: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

export function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Starts an SMTP server on `port` (0: any free port). */
export async function startMailServer(port = 0): Promise<MailServer> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    mails,
    mailsTo: (recipient) =>
      mails.filter((mail) => mail.to.includes(recipient.toLowerCase()) || mail.to.includes(recipient)),
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find(predicate);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no matching mail within ${timeoutMs} ms (${mails.length} received)`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function codeIn(mail: CapturedMail): string {
  const match = /enter this code: (\d{6})/.exec(mail.text);
  assert.ok(match, 'the mail holds a 6-digit code');
  return match[1] as string;
}

export function downloadLinkIn(mail: CapturedMail): string {
  const match = /(http:\/\/[^\s"<]+\/privacy-center\/download\/[A-Za-z0-9_-]{43})/.exec(mail.text);
  assert.ok(match, 'the mail holds a download link');
  return match[1] as string;
}

export const isKind = (subject: string, recipient: string) => (mail: CapturedMail) =>
  mail.to.includes(recipient.toLowerCase()) && mail.text.includes(subject);

/** Engine settings plus a fast outbox. */
export function subjectSideConfig(
  smtpPort: number | undefined,
  extra: Partial<Config> = {},
): Partial<Config> {
  return {
    ...engineConfig,
    smtpUrl: smtpPort === undefined ? undefined : `smtp://127.0.0.1:${smtpPort}`,
    smtpFrom: 'Privacy <privacy@lethe.test>',
    outboxPollIntervalSeconds: 0.2,
    outboxRetryMaxSeconds: 1,
    // test/privacy-center/bad-input.test.ts checks the real throttle with its own limit
    publicRequestsPerMinute: 100_000,
    ...extra,
  };
}

export const DEFAULT_ACTIONS = {
  title: 'Example privacy center',
  organization_name: 'Example Ltd',
  actions: [
    {
      policy_key: 'default_access_policy',
      title: 'Get a copy of my data',
      description: 'We send you a link to download everything we hold about you.',
      identity_inputs: { email: 'required' },
    },
    {
      policy_key: 'default_erasure_policy',
      title: 'Erase my data',
      description: 'We erase what we hold about you.',
      identity_inputs: { email: 'required', phone_number: 'optional' },
    },
  ],
};

export async function publishDefaults(service: TestService, settings: unknown = DEFAULT_ACTIONS) {
  const answer = await service.call('PUT', '/v1/privacy-center', {
    token: await service.rootToken(),
    json: settings,
  });
  assert.equal(answer.status, 200, answer.text);
}

/** Every entry of a ZIP file, read with yauzl (a reader independent of the writer). */
export async function readZip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}
