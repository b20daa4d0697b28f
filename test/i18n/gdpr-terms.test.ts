// The legal terms of a refusal under the GDPR as its official language versions write them: art. 77's
// right to lodge a complaint with a supervisory authority and art. 79's right to an effective judicial
// remedy, in the denial mail of every built-in language, each sentence grammatical around the authority's
// name (no "a l’autorità", no "a a autoridade").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderMessage } from '../../src/privacy-requests/messages/templates.ts';

const OFFICIAL: Record<string, { complaint: string; remedy: string }> = {
  en: {
    complaint: 'right to lodge a complaint with the data protection supervisory authority',
    remedy: 'right to an effective judicial remedy',
  },
  de: {
    complaint: 'Recht auf Beschwerde bei der Datenschutz-Aufsichtsbehörde',
    remedy: 'Recht auf einen wirksamen gerichtlichen Rechtsbehelf',
  },
  fr: {
    complaint: 'droit d’introduire une réclamation auprès de l’autorité de contrôle',
    remedy: 'droit à un recours juridictionnel effectif',
  },
  es: {
    complaint: 'derecho a presentar una reclamación ante la autoridad de control',
    remedy: 'derecho a la tutela judicial efectiva',
  },
  it: {
    complaint: 'diritto di proporre reclamo a un’autorità di controllo',
    remedy: 'diritto di proporre un ricorso giurisdizionale effettivo',
  },
  nl: {
    complaint: 'recht klacht in te dienen bij de toezichthoudende autoriteit',
    remedy: 'recht een doeltreffende voorziening in rechte in te stellen',
  },
  pt: {
    complaint: 'direito de apresentar reclamação a uma autoridade de controlo',
    remedy: 'direito à ação judicial',
  },
  pl: {
    complaint: 'prawo wniesienia skargi do organu nadzorczego',
    remedy: 'prawo do skutecznego środka ochrony prawnej przed sądem',
  },
  sv: {
    complaint: 'rätt att lämna in klagomål till tillsynsmyndigheten',
    remedy: 'rätt till ett effektivt rättsmedel',
  },
};

describe('GDPR terms in every language', () => {
  for (const [language, terms] of Object.entries(OFFICIAL)) {
    it(`${language}: the denial names the complaint and the judicial remedy in the GDPR's words`, () => {
      const { text } = renderMessage('denied', {
        language,
        organizationName: 'Example Ltd',
        actionTitle: 'Access',
        requestId: 'pri_1',
        statusUrl: 'http://127.0.0.1:8080/privacy-center/requests/pri_1',
        reason: 'x',
        authority: { name: 'EDPB', url: 'https://www.edpb.europa.eu/', nameKey: 'authority.gdpr' },
        judicialRemedy: true,
      });
      assert.ok(text.includes(terms.complaint), `${language}: ${text}`);
      assert.ok(text.includes(terms.remedy), `${language}: ${text}`);
      assert.doesNotMatch(text, /\ba l’autorità|\ba a autoridade/, language);
    });
  }
});
