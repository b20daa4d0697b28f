// Mails a subject access report (Area B's /api/user/sar) through the one mail transport when
// LETHE_SMTP_URL is set. A delivery failure is reported back (and audited by the caller) rather than
// thrown: the caller still receives the report in the HTTP answer.
import type { Config } from '../config.ts';
import { mailFailureCodes, type MailTransport, smtpTransport } from './transport.ts';

export interface SarDelivery {
  mailed: boolean;
  error?: string;
}

export class SarMailer {
  readonly #transport: MailTransport | undefined;
  readonly #from: string;

  constructor(config: Pick<Config, 'smtpUrl' | 'smtpFrom'>) {
    this.#transport = smtpTransport(config);
    this.#from = config.smtpFrom;
  }

  async send(
    recipient: string,
    report: { entityId: string; datastore: string; generatedAt: string },
  ): Promise<SarDelivery> {
    if (!this.#transport) return { mailed: false };
    try {
      await this.#transport.send({
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
      const codes = mailFailureCodes(error);
      return {
        mailed: false,
        error: `The report could not be mailed${codes.length ? ` (${codes.join(', ')})` : ''}.`,
      };
    }
  }

  close() {
    this.#transport?.close();
  }
}
