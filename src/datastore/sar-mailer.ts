// Delivers subject access reports by mail when LETHE_SMTP_URL is set. A delivery failure is reported
// back (and audited) rather than thrown: the caller still receives the report in the HTTP answer.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export interface SarDelivery {
  mailed: boolean;
  error?: string;
}

export class SarMailer {
  readonly #transport: Transporter | undefined;
  readonly #from: string;

  constructor(config: Pick<Config, 'smtpUrl' | 'smtpFrom'>) {
    this.#transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : undefined;
    this.#from = config.smtpFrom;
  }

  async send(
    recipient: string,
    report: { entityId: string; datastore: string; generatedAt: string },
  ): Promise<SarDelivery> {
    if (!this.#transport) return { mailed: false };
    try {
      await this.#transport.sendMail({
        from: this.#from,
        to: recipient,
        subject: 'Your subject access report',
        text:
          `Attached is the personal data held about you in the datastore ${report.datastore} ` +
          `(subject ${report.entityId}), as of ${report.generatedAt}.\n`,
        attachments: [
          {
            filename: 'subject-access-report.json',
            contentType: 'application/json',
            content: JSON.stringify(report, null, 2),
          },
        ],
      });
      return { mailed: true };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        mailed: false,
        error: `The report could not be mailed${typeof code === 'string' ? ` (${code})` : ''}.`,
      };
    }
  }

  close() {
    this.#transport?.close();
  }
}
