// The built-in jurisdictions: one reviewed data module, each rule beside the article it comes from. A change
// here changes promises made to data subjects; review it against the cited text (docs/deadlines.md says
// what Lethe does not decide for you). Periods run from receipt of the request and are counted by
// calendar.ts; an appeal window runs from the decision it appeals.

import type { MessageKey } from '../i18n/catalogue.ts';

/** A period counted in calendar months (GDPR) or in calendar days (the US statutes). */
export type Period = { months: number } | { days: number };

export interface Authority {
  /** Whom the subject may complain to. */
  name: string;
  url: string;
  /** The name in the subject's language (src/i18n/), where it is a description rather than a proper name. */
  nameKey?: MessageKey;
}

export interface Jurisdiction {
  code: string;
  name: string;
  /** The time to answer a request, from its receipt. */
  response: Period;
  /** How far one extension with a reasoned notice moves the due date. */
  extension: Period;
  /** Business days (Monday to Friday) to confirm receipt, where the law sets them. */
  acknowledgeBusinessDays?: number;
  /** Days after a denial during which the subject may appeal; absent: the law gives no appeal. */
  appealDays?: number;
  /** Days to decide an appeal, from its receipt. */
  appealResponseDays?: number;
  authority: Authority;
}

const GDPR_AUTHORITY: Authority = {
  name: 'the data protection supervisory authority of your member state',
  url: 'https://www.edpb.europa.eu/about-edpb/about-edpb/members_en',
  nameKey: 'authority.gdpr',
};

export const JURISDICTIONS: readonly Jurisdiction[] = [
  {
    // GDPR art. 12(3): "without undue delay and in any event within one month of receipt", "extended by two
    // further months where necessary", the subject informed "within one month of receipt ... together with
    // the reasons for the delay". Art. 12(4): a refusal gives its reasons and the right to lodge a complaint
    // (art. 77); the GDPR has no appeal to the controller.
    code: 'EU',
    name: 'European Union (GDPR)',
    response: { months: 1 },
    extension: { months: 2 },
    authority: GDPR_AUTHORITY,
  },
  {
    // GDPR art. 12(3) and 12(4) as incorporated into the EEA Agreement (EEA Joint Committee Decision
    // 154/2018): Iceland, Liechtenstein and Norway count as the Union does.
    code: 'EEA',
    name: 'European Economic Area outside the EU (GDPR)',
    response: { months: 1 },
    extension: { months: 2 },
    authority: GDPR_AUTHORITY,
  },
  {
    // UK GDPR art. 12(3) and 12(4) (retained by the European Union (Withdrawal) Act 2018): one month,
    // extendable by two; complaints go to the Information Commissioner.
    code: 'UK',
    name: 'United Kingdom (UK GDPR)',
    response: { months: 1 },
    extension: { months: 2 },
    authority: { name: "the Information Commissioner's Office", url: 'https://ico.org.uk/make-a-complaint/' },
  },
  {
    // CCPA/CPRA: Cal. Code Regs. tit. 11 §7021(a) confirm receipt within 10 business days; §7021(b) and
    // Civ. Code §1798.130(a)(2)(A) respond within 45 calendar days, extendable once by 45 with notice and
    // the reason. The CCPA gives no appeal; complaints go to the California Privacy Protection Agency.
    code: 'US-CA',
    name: 'California (CCPA/CPRA)',
    response: { days: 45 },
    extension: { days: 45 },
    acknowledgeBusinessDays: 10,
    authority: {
      name: 'the California Privacy Protection Agency',
      url: 'https://cppa.ca.gov/webapplications/complaint',
    },
  },
  {
    // Virginia CDPA, Va. Code §59.1-578(A): respond within 45 days, extendable once by 45; §59.1-578(C):
    // an appeal decided within 60 days, a denied appeal naming how to contact the Attorney General. The
    // statute leaves the appeal window to the controller: Lethe gives 45 days from the decision.
    code: 'US-VA',
    name: 'Virginia (VCDPA)',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: 45,
    appealResponseDays: 60,
    authority: {
      name: 'the Office of the Attorney General of Virginia',
      url: 'https://www.oag.state.va.us/consumer-protection/',
    },
  },
  {
    // Colorado Privacy Act, C.R.S. §6-1-1306(2)(a)-(b): 45 days, extendable once by 45; §6-1-1306(3): an
    // appeal decided within 45 days, a denied appeal naming how to contact the Attorney General.
    code: 'US-CO',
    name: 'Colorado (CPA)',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: 45,
    appealResponseDays: 45,
    authority: {
      name: 'the Colorado Attorney General',
      url: 'https://coag.gov/file-complaint/',
    },
  },
  {
    // Connecticut Data Privacy Act, Conn. Gen. Stat. §42-518(a)-(b): 45 days, extendable once by 45;
    // §42-518(d): an appeal decided within 60 days, a denied appeal naming how to contact the Attorney
    // General.
    code: 'US-CT',
    name: 'Connecticut (CTDPA)',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: 45,
    appealResponseDays: 60,
    authority: {
      name: 'the Connecticut Attorney General',
      url: 'https://portal.ct.gov/ag/common/complaint-form-landing-page',
    },
  },
];

const BY_CODE = new Map(JURISDICTIONS.map((jurisdiction) => [jurisdiction.code, jurisdiction]));

export function jurisdictionByCode(code: string | null | undefined): Jurisdiction | undefined {
  return code ? BY_CODE.get(code) : undefined;
}

export const JURISDICTION_CODES: readonly string[] = JURISDICTIONS.map((jurisdiction) => jurisdiction.code);
