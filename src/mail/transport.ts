// The one way Lethe sends mail: an SMTP transport (nodemailer) on LETHE_SMTP_URL, used by the outbox's
// delivery and by Area B's mailed access reports alike, so that one place knows the mail library.
// Callers see only `send` and `close`; an error keeps the transport's code, never its text (which may
// quote the recipient).
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * The SMTP transport of `config.smtpUrl`, or undefined when Lethe has no mail server. nodemailer (660 KB
 * of modules) is loaded by the first send, so that a Lethe without mail, and one that has not mailed yet,
 * does not hold it.
 */
export function smtpTransport(config: Pick<Config, 'smtpUrl'>): MailTransport | undefined {
  const { smtpUrl } = config;
  if (!smtpUrl) return undefined;
  let transport: Promise<Transporter> | undefined;
  const opened = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(smtpUrl),
    ));
  return {
    async send(message) {
      await (await opened()).sendMail(message);
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}

/** A sentence naming why a send failed by the transport's codes only (no server text, no address). */
export function mailFailureCodes(error: unknown): string[] {
  const code = (error as { code?: unknown }).code;
  const responseCode = (error as { responseCode?: unknown }).responseCode;
  return [
    typeof code === 'string' ? code : undefined,
    typeof responseCode === 'number' ? `SMTP ${responseCode}` : undefined,
  ].filter((part): part is string => part !== undefined);
}
