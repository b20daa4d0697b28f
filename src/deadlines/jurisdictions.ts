// The built-in jurisdictions: the one data file of the rules Lethe keeps, each beside the article it comes
// from and with its citation (docs/deadlines.md's table is generated from this list: npm run docs:deadlines).
// A change here changes promises made to data subjects; review it against the cited text. Periods run from
// the local day of receipt in the rule's time zone and end at the end of their last local day (calendar.ts);
// an appeal window runs from the decision it appeals. A zone is the one whose days end first where a state
// or territory spans several: Lethe's deadlines are never later than the law's.

import type { MessageKey } from '../i18n/catalogue.ts';

/** A period counted in calendar months (GDPR) or in calendar days (the other laws). */
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
  /** The sections the rule comes from, as a lawyer would cite them. */
  citation: string;
  /** IANA time zone whose local days the periods count (a location may name a more precise one). */
  timeZone: string;
  /** The time to answer a request, from its receipt. */
  response: Period;
  /** How far one extension with a reasoned notice moves the due date; absent: the law gives none. */
  extension?: Period;
  /** Business days (Monday to Friday) to confirm receipt, where the law sets them. */
  acknowledgeBusinessDays?: number;
  /** Days after a denial during which the subject may appeal; absent: the law gives no appeal. */
  appealDays?: number;
  /** Days to decide an appeal, from its receipt. */
  appealResponseDays?: number;
  /** The refusal must name a court remedy as well as the authority (GDPR art. 12(4), UK GDPR art. 12(4)). */
  judicialRemedy?: boolean;
  authority: Authority;
}

/**
 * The US statutes leave the time to appeal to the controller ("a reasonable period of time after the
 * consumer's receipt of the decision", e.g. ORS 646A.576(6)(a)): Lethe gives 45 days from the decision.
 */
export const APPEAL_WINDOW_DAYS = 45;

const GDPR_AUTHORITY: Authority = {
  name: 'the data protection supervisory authority of your member state',
  url: 'https://www.edpb.europa.eu/about-edpb/about-edpb/members_en',
  nameKey: 'authority.gdpr',
};

export const JURISDICTIONS: readonly Jurisdiction[] = [
  {
    // GDPR art. 12(3): "without undue delay and in any event within one month of receipt", "extended by two
    // further months where necessary", the subject informed within the first month with the reasons. Art.
    // 12(4): a refusal gives its reasons, the right to lodge a complaint with a supervisory authority (art.
    // 77) and to seek a judicial remedy (art. 79); the GDPR has no appeal to the controller. The outermost
    // regions (art. 349 TFEU: GP GF MQ YT RE MF, the Azores, Madeira, the Canary Islands) and the Aland
    // Islands are Union territory. Without a location, the zone whose days end first: Reunion (UTC+4).
    code: 'EU',
    name: 'European Union (GDPR)',
    citation: 'GDPR art. 12(3), 12(4)',
    timeZone: 'Indian/Reunion',
    response: { months: 1 },
    extension: { months: 2 },
    judicialRemedy: true,
    authority: GDPR_AUTHORITY,
  },
  {
    // GDPR art. 12(3) and 12(4) as incorporated into the EEA Agreement (EEA Joint Committee Decision
    // 154/2018): Iceland, Liechtenstein and Norway count as the Union does.
    code: 'EEA',
    name: 'European Economic Area outside the EU (GDPR)',
    citation: 'GDPR art. 12(3), 12(4); EEA JCD 154/2018',
    timeZone: 'Europe/Oslo',
    response: { months: 1 },
    extension: { months: 2 },
    judicialRemedy: true,
    authority: GDPR_AUTHORITY,
  },
  {
    // UK GDPR art. 12(3) and 12(4) (retained by the European Union (Withdrawal) Act 2018): one month,
    // extendable by two; complaints go to the Information Commissioner, and the courts (DPA 2018 s.167).
    code: 'UK',
    name: 'United Kingdom (UK GDPR)',
    citation: 'UK GDPR art. 12(3), 12(4)',
    timeZone: 'Europe/London',
    response: { months: 1 },
    extension: { months: 2 },
    judicialRemedy: true,
    authority: { name: "the Information Commissioner's Office", url: 'https://ico.org.uk/make-a-complaint/' },
  },
  {
    // Swiss FADP art. 25 with the Data Protection Ordinance art. 18(1): the information within 30 days.
    // Art. 18(2) lets the controller say it needs longer without fixing how long: Lethe offers no extension.
    code: 'CH',
    name: 'Switzerland (FADP)',
    citation: 'FADP art. 25; DPO art. 18',
    timeZone: 'Europe/Zurich',
    response: { days: 30 },
    authority: {
      name: 'the Federal Data Protection and Information Commissioner',
      url: 'https://www.edoeb.admin.ch/',
    },
  },
  {
    // LGPD art. 19(II): the complete declaration within 15 days of the request; no extension. Complaints go to
    // the ANPD (art. 18 §1). Brazil's easternmost zone (Fernando de Noronha, UTC-2) ends its days first.
    code: 'BR',
    name: 'Brazil (LGPD)',
    citation: 'LGPD art. 18, 19(II)',
    timeZone: 'America/Noronha',
    response: { days: 15 },
    authority: {
      name: 'the Autoridade Nacional de Proteção de Dados (ANPD)',
      url: 'https://www.gov.br/anpd/',
    },
  },
  {
    // Quebec's private-sector act (CQLR c P-39.1, as amended by Law 25) s. 32: answer in writing within 30
    // days of receipt, no extension; a refusal names the Commission d'accès à l'information (s. 34), to which
    // the person may apply (s. 42). The Magdalen Islands keep Atlantic time: the conservative zone.
    code: 'CA-QC',
    name: 'Quebec (Law 25)',
    citation: 'CQLR c P-39.1 s. 32, 34',
    timeZone: 'America/Halifax',
    response: { days: 30 },
    authority: {
      name: "the Commission d'accès à l'information du Québec",
      url: 'https://www.cai.gouv.qc.ca/',
    },
  },
  {
    // §1798.130(a)(2)(A) and regs §7021(b): 45 calendar days, extendable once by 45 with notice and the reason; §7021(a): confirm receipt within 10 business days. The CCPA gives no appeal to the business.
    code: 'US-CA',
    name: 'California (CCPA/CPRA)',
    citation: 'Cal. Civ. Code §1798.130(a)(2)(A); Cal. Code Regs. tit. 11 §7021',
    timeZone: 'America/Los_Angeles',
    response: { days: 45 },
    extension: { days: 45 },
    acknowledgeBusinessDays: 10,
    authority: {
      name: 'the California Privacy Protection Agency',
      url: 'https://cppa.ca.gov/webapplications/complaint',
    },
  },
  {
    // §59.1-577(B)(1): 45 days, extendable once by 45; §59.1-577(C): an appeal decided within 60 days of its receipt, a denied appeal naming how to contact the Attorney General.
    code: 'US-VA',
    name: 'Virginia (VCDPA)',
    citation: 'Va. Code §59.1-577',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Office of the Attorney General of Virginia',
      url: 'https://www.oag.state.va.us/consumer-protection/',
    },
  },
  {
    // §6-1-1306(2)(a)-(b): 45 days, extendable once by 45; §6-1-1306(3): an appeal decided within 45 days (extendable by 60, which Lethe does not use), a denied appeal naming how to contact the Attorney General.
    code: 'US-CO',
    name: 'Colorado (CPA)',
    citation: 'C.R.S. §6-1-1306',
    timeZone: 'America/Denver',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 45,
    authority: { name: 'the Colorado Attorney General', url: 'https://coag.gov/file-complaint/' },
  },
  {
    // §42-518(c)(1): 45 days, extendable once by 45; §42-518(d): an appeal decided within 60 days, a denied appeal naming how to contact the Attorney General.
    code: 'US-CT',
    name: 'Connecticut (CTDPA)',
    citation: 'Conn. Gen. Stat. §42-518',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Connecticut Attorney General',
      url: 'https://portal.ct.gov/ag/common/complaint-form-landing-page',
    },
  },
  {
    // §13-61-203(4): 45 days, extendable once by 45 with notice and the reason. The UCPA gives no appeal; the Division of Consumer Protection receives complaints and refers them to the Attorney General (§13-61-401).
    code: 'US-UT',
    name: 'Utah (UCPA)',
    citation: 'Utah Code §13-61-203',
    timeZone: 'America/Denver',
    response: { days: 45 },
    extension: { days: 45 },
    authority: { name: 'the Utah Division of Consumer Protection', url: 'https://dcp.utah.gov/complaints/' },
  },
  {
    // §541.052(b): 45 days, extendable once by 45; §541.053: an appeal decided within 60 days, a denied appeal naming the online mechanism to complain to the Attorney General. Texas's western tip keeps Mountain time: Central, whose days end first, is the conservative zone.
    code: 'US-TX',
    name: 'Texas (TDPSA)',
    citation: 'Tex. Bus. & Com. Code §541.052, §541.053',
    timeZone: 'America/Chicago',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Texas Attorney General',
      url: 'https://www.texasattorneygeneral.gov/consumer-protection/file-consumer-complaint',
    },
  },
  {
    // 646A.576(5)(a)-(b): 45 days, extendable once by 45; 646A.576(6)(d): an appeal decided within 45 days, a denied appeal naming how to complain to the Attorney General. Malheur County keeps Mountain time, whose days end before Pacific ones: the conservative zone.
    code: 'US-OR',
    name: 'Oregon (OCPA)',
    citation: 'ORS 646A.576',
    timeZone: 'America/Boise',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 45,
    authority: {
      name: 'the Oregon Department of Justice',
      url: 'https://www.doj.state.or.us/consumer-protection/contact-us/',
    },
  },
  {
    // §30-14-2808: 45 days, extendable once by 45; an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General.
    code: 'US-MT',
    name: 'Montana (MCDPA)',
    citation: 'Mont. Code Ann. §30-14-2808',
    timeZone: 'America/Denver',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: { name: 'the Montana Office of Consumer Protection', url: 'https://dojmt.gov/consumer/' },
  },
  {
    // §715D.4(2): 90 days, extendable once by 45; §715D.4(3)-(4): an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General.
    code: 'US-IA',
    name: 'Iowa (ICDPA)',
    citation: 'Iowa Code §715D.4',
    timeZone: 'America/Chicago',
    response: { days: 90 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Iowa Attorney General',
      url: 'https://www.iowaattorneygeneral.gov/for-consumers/file-a-consumer-complaint',
    },
  },
  {
    // §12D-104(c): 45 days, extendable once by 45; §12D-104(d): an appeal decided within 60 days, a denied appeal naming how to complain to the Department of Justice.
    code: 'US-DE',
    name: 'Delaware (DPDPA)',
    citation: 'Del. Code tit. 6 §12D-104',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Delaware Department of Justice',
      url: 'https://attorneygeneral.delaware.gov/fraud/cpu/complaint/',
    },
  },
  {
    // §87-1108(2): 45 days, extendable once by 45; §87-1109: an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General. The panhandle keeps Mountain time: Central, whose days end first, is the conservative zone.
    code: 'US-NE',
    name: 'Nebraska (NDPA)',
    citation: 'Neb. Rev. Stat. §87-1108, §87-1109',
    timeZone: 'America/Chicago',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: { name: 'the Nebraska Attorney General', url: 'https://protectthegoodlife.nebraska.gov/' },
  },
  {
    // RSA 507-H:4 II: 45 days, extendable once by 45; RSA 507-H:4 IV: an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General.
    code: 'US-NH',
    name: 'New Hampshire (NHPA)',
    citation: 'N.H. Rev. Stat. §507-H:4',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the New Hampshire Attorney General',
      url: 'https://www.doj.nh.gov/citizens/consumer-protection-antitrust-bureau',
    },
  },
  {
    // §56:8-166.7(a): 45 days, extendable once by 45; §56:8-166.7(c): a refusal with instructions to appeal; §56:8-166.11: an appeal decided within 45 days, a denied appeal naming how to complain to the Division of Consumer Affairs.
    code: 'US-NJ',
    name: 'New Jersey (NJDPA)',
    citation: 'N.J. Stat. §56:8-166.7, §56:8-166.11',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 45,
    authority: {
      name: 'the New Jersey Division of Consumer Affairs',
      url: 'https://www.njconsumeraffairs.gov/Pages/Consumer-Complaints.aspx',
    },
  },
  {
    // §47-18-3306: 45 days, extendable once by 45; an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General. East Tennessee keeps Eastern time, whose days end first: the conservative zone.
    code: 'US-TN',
    name: 'Tennessee (TIPA)',
    citation: 'Tenn. Code Ann. §47-18-3306',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Tennessee Attorney General',
      url: 'https://www.tn.gov/attorneygeneral/working-for-tennessee/consumer/file-a-complaint.html',
    },
  },
  {
    // §325M.14 subd. 4: 45 days, extendable once by 45; subd. 5: an appeal decided within 45 days (extendable by 60, which Lethe does not use), a denied appeal naming how to complain to the Attorney General.
    code: 'US-MN',
    name: 'Minnesota (MCDPA)',
    citation: 'Minn. Stat. §325M.14',
    timeZone: 'America/Chicago',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 45,
    authority: {
      name: 'the Minnesota Attorney General',
      url: 'https://www.ag.state.mn.us/Office/Complaint.asp',
    },
  },
  {
    // §14-4605(c): 45 days, extendable once by 45; §14-4605(e): an appeal decided within 60 days, a denied appeal naming how to complain to the Consumer Protection Division.
    code: 'US-MD',
    name: 'Maryland (MODPA)',
    citation: 'Md. Code, Com. Law §14-4605',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Maryland Attorney General, Consumer Protection Division',
      url: 'https://www.marylandattorneygeneral.gov/Pages/CPD/complaint.aspx',
    },
  },
  {
    // §24-15-3-3: 45 days, extendable once by 45; §24-15-3-4: an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General. Most of Indiana keeps Eastern time, whose days end first: the conservative zone.
    code: 'US-IN',
    name: 'Indiana (ICDPA)',
    citation: 'Ind. Code §24-15-3-3, §24-15-3-4',
    timeZone: 'America/Indiana/Indianapolis',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Indiana Attorney General',
      url: 'https://www.in.gov/attorneygeneral/consumer-protection-division/file-a-complaint/',
    },
  },
  {
    // KRS 367.3615(3): 45 days, extendable once by 45; KRS 367.3615(4): an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General. Eastern Kentucky's days end first: the conservative zone.
    code: 'US-KY',
    name: 'Kentucky (KCDPA)',
    citation: 'Ky. Rev. Stat. §367.3615',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: {
      name: 'the Kentucky Attorney General, Office of Data Privacy',
      url: 'https://www.ag.ky.gov/',
    },
  },
  {
    // §6-48.1-6(b)(1): 45 days, extendable by 45 with notice within the first 45 and the reason; §6-48.1-6(b)(2): a refusal with instructions to appeal; an appeal decided within 60 days, a denied appeal naming how to complain to the Attorney General.
    code: 'US-RI',
    name: 'Rhode Island (RIDTPPA)',
    citation: 'R.I. Gen. Laws §6-48.1-6',
    timeZone: 'America/New_York',
    response: { days: 45 },
    extension: { days: 45 },
    appealDays: APPEAL_WINDOW_DAYS,
    appealResponseDays: 60,
    authority: { name: 'the Rhode Island Attorney General', url: 'https://riag.ri.gov/' },
  },
];

const BY_CODE = new Map(JURISDICTIONS.map((jurisdiction) => [jurisdiction.code, jurisdiction]));

export function jurisdictionByCode(code: string | null | undefined): Jurisdiction | undefined {
  return code ? BY_CODE.get(code) : undefined;
}

export const JURISDICTION_CODES: readonly string[] = JURISDICTIONS.map((jurisdiction) => jurisdiction.code);

/** A US state's law protects its own residents only: it never stands in for another place's. */
export function isUsStateLaw(code: string): boolean {
  return code.startsWith('US-');
}

/** The sentence refusing a code that is no built-in rule; it names the code (a place, never a person). */
export function unknownJurisdictionMessage(code: string): string {
  return `jurisdiction ${JSON.stringify(code)} is not a built-in jurisdiction; GET /v1/jurisdiction lists them (${JURISDICTION_CODES.join(', ')}).`;
}
