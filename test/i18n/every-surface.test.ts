// Every surface a data subject sees, rendered in every language: each page, each message kind, report.html
// and data.csv's header. None is empty, every placeholder is filled, the page says its language, and none
// falls back to English unnoticed: a sentence of English's catalogue that the language's own catalogue does
// not contain must not appear (a hardcoded English text, or a key read from English, would show it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDataCsv } from '../../src/access-delivery/data-csv.ts';
import { renderAccessReport } from '../../src/access-delivery/report.ts';
import { catalogueOf, LANGUAGES, REFERENCE_LANGUAGE } from '../../src/i18n/catalogue.ts';
import { REQUEST_MESSAGE_KINDS } from '../../src/outbox/repository.ts';
import { renderAppealForm, renderAppealReceived } from '../../src/privacy-center/appeal-page.ts';
import { renderConfirmation } from '../../src/privacy-center/confirm-agent-routes.ts';
import { renderHome, renderProblem, renderStanding } from '../../src/privacy-center/page.ts';
import type { PrivacyCenterSettings } from '../../src/privacy-center-settings/schemas.ts';
import { type MessageContext, renderMessage } from '../../src/privacy-requests/messages/templates.ts';
import { renderRespondentEnding, renderRespondentForm } from '../../src/tasks/respondent-page.ts';
import type { TaskRow } from '../../src/tasks/repository.ts';

const settings: PrivacyCenterSettings = {
  title: 'Example privacy center',
  organization_name: 'Example Ltd',
  actions: [
    { policy_key: 'access', title: 'Copy', description: 'Data.', identity_inputs: { email: 'required' } },
    {
      policy_key: 'opt_out',
      title: 'Opt out',
      description: '',
      identity_inputs: { email: 'optional', phone_number: 'optional' },
    },
    { policy_key: 'fix', title: 'Fix', description: '', identity_inputs: { email: 'required' } },
  ],
};
const kinds = { optOuts: new Set(['opt_out']), corrections: new Set(['fix']) };
const at = new Date('2026-12-29T03:45:00Z');
const token = 'A'.repeat(43);
const view = (stage: string, status: string, agent = false) => ({
  id: 'pri_00000000-0000-4000-8000-000000000001',
  status,
  stage: stage as 'received',
  action_title: 'Copy',
  requested_at: at.toISOString(),
  identity_verified: false,
  awaiting_agent_confirmation: agent,
});
const task: TaskRow = {
  id: 'task_1',
  privacy_request_id: 'pri_1',
  system_key: 'paper',
  system_name: 'Paper archive',
  action: 'erasure',
  fields: [{ name: 'found', label: 'Found' }],
  instructions: 'Look in the cabinet.',
  respondent_email: null,
  status: 'open',
  assignee: null,
  due_at: at,
  created_at: at,
  done_at: null,
  done_by: null,
  skip_reason: null,
  data_sealed: null,
} as TaskRow;

/** Every page, each in a few states, in `language`. */
function pages(language: string): Record<string, string> {
  const page = { language, path: '/privacy-center' };
  const rendered: Record<string, string> = {
    home: renderHome(settings, undefined, kinds, language),
    'home with no actions': renderHome({ ...settings, actions: [] }, undefined, kinds, language),
    'standing awaiting the code': renderStanding(
      settings,
      view('received', 'identity_unverified'),
      undefined,
      language,
    ),
    'standing awaiting the agent': renderStanding(
      settings,
      view('received', 'identity_unverified', true),
      undefined,
      language,
    ),
    'problem 404': renderProblem(settings, 404, 'x', page),
    'problem 429': renderProblem(settings, 429, 'x', page),
    'problem 403': renderProblem(settings, 403, 'x', page),
    'appeal form': renderAppealForm(settings, token, at, { message: 'x', statement: 'y' }, language),
    'appeal received': renderAppealReceived(settings, at, page),
    'respondent form': renderRespondentForm('Example Ltd', task, token, [], language),
  };
  for (const stage of ['verified', 'in_progress', 'done', 'denied', 'canceled'])
    rendered[`standing ${stage}`] = renderStanding(settings, view(stage, 'pending'), undefined, language);
  for (const state of ['awaiting', 'confirmed', 'expired'] as const)
    rendered[`confirm-agent ${state}`] = renderConfirmation(
      settings,
      { privacyRequestId: 'pri_1', agentName: 'Agent Smith', state },
      token,
      language,
    );
  for (const ending of ['done', 'used', 'expired', 'answered', 'unknown', 'cross_site', 'too_long'] as const)
    rendered[`respondent ${ending}`] = renderRespondentEnding('Example Ltd', ending, page);
  rendered['report.html'] = renderAccessReport(
    {
      privacy_request_id: 'pri_1',
      policy_key: 'access',
      generated_at: at.toISOString(),
      rules: [],
      datastores: [
        {
          name: 'crm',
          matched_entities: 1,
          entities: [
            {
              id: 'e1',
              name: 'users',
              references: [],
              attributes: [
                { name: 'email', value: 'a@example.com' },
                { name: 'nickname', value: null },
              ],
              files: [{ name: 'avatar', fileName: 'me.png', contentType: 'image/png', size: 3 }],
              createdAt: at.toISOString(),
            },
            {
              id: 'e2',
              name: 'empty',
              references: [],
              attributes: [],
              files: [],
              createdAt: at.toISOString(),
            },
          ],
        },
      ],
    },
    'Example Ltd',
    {
      language,
      disclosures: {
        datastores: new Map(),
        connections: new Map([
          [
            'analytics',
            {
              purposes: [],
              recipients: [],
              retention: '',
              source: '',
              automated_decisions: '',
              updated_at: null,
            },
          ],
        ]),
      },
    },
  );
  rendered['report.html without data'] = renderAccessReport(
    {
      privacy_request_id: 'pri_1',
      policy_key: 'access',
      generated_at: at.toISOString(),
      rules: [],
      datastores: [],
    },
    'Example Ltd',
    { language },
  );
  return rendered;
}

/** Every message kind with every detail it can carry, in `language`. */
function messages(language: string): Record<string, string> {
  const context: MessageContext = {
    language,
    organizationName: 'Example Ltd',
    actionTitle: 'Copy',
    requestId: 'pri_1',
    statusUrl: 'http://127.0.0.1/privacy-center/requests/pri_1',
    code: '123456',
    codeTtlMinutes: 10,
    reason: 'A reason.',
    download: { url: 'http://127.0.0.1/privacy-center/download/x', expiresAt: at },
    erased: [
      {
        datastore: 'crm',
        entities: 1,
        attributesMasked: 2,
        attributesDeleted: 3,
        filesDeleted: 1,
        entitiesForgotten: 5,
      },
    ],
    dueDate: at,
    authority: { name: 'x', url: 'https://authority.example/', nameKey: 'authority.gdpr' },
    appeal: { url: 'http://127.0.0.1/privacy-center/appeal/x', until: at },
    task: {
      systemName: 'Paper archive',
      instructions: 'Look.',
      url: 'http://127.0.0.1/respond/x',
      expiresAt: at,
      dueAt: at,
    },
    recipients: ['Newsletter Inc'],
    agent: {
      name: 'Agent Smith',
      confirmUrl: 'http://127.0.0.1/privacy-center/confirm-agent/x',
      expiresAt: at,
    },
  };
  const rendered: Record<string, string> = {};
  for (const kind of REQUEST_MESSAGE_KINDS) {
    const message = renderMessage(kind, context);
    rendered[`${kind} (subject line)`] = message.subject;
    rendered[`${kind} (text)`] = message.text;
    rendered[`${kind} (HTML)`] = message.html;
  }
  const { reason: _reason, authority: _authority, dueDate: _dueDate, ...bare } = context;
  for (const kind of ['denied', 'extended', 'appeal_upheld', 'canceled'] as const)
    rendered[`${kind} without its details`] = renderMessage(kind, bare).text;
  rendered['completed without erasure'] = renderMessage('completed', { ...context, erased: [] }).text;
  rendered['data.csv header'] = renderDataCsv(
    { privacy_request_id: 'p', policy_key: 'k', generated_at: '', rules: [], datastores: [] },
    language,
  );
  return rendered;
}

/** English's words that `language`'s catalogue does not have: pieces between placeholders, long enough to mean something. */
function englishOnly(language: string): string[] {
  const own = Object.values(catalogueOf(language)).join('\n');
  return Object.values(catalogueOf(REFERENCE_LANGUAGE))
    .flatMap((text) => text.split(/\{[^{}]*\}|[{}#]/))
    .map((piece) => piece.trim())
    .filter((piece) => piece.length >= 12 && !own.includes(piece));
}

describe('every surface in every language', () => {
  for (const language of LANGUAGES) {
    it(`${language}: every page and every message is whole, filled and in ${language}`, () => {
      const rendered = { ...pages(language), ...messages(language) };
      const foreign = language === REFERENCE_LANGUAGE ? [] : englishOnly(language);
      for (const [name, text] of Object.entries(rendered)) {
        const words = text.includes('<main') ? (text.split('<main')[1] ?? '') : text;
        assert.ok(
          /\p{L}{2}/u.test(words.replaceAll(/<\/?[a-z][^<>]*>/g, ' ')),
          `${language} ${name} is empty`,
        );
        assert.ok(!/\{[a-zA-Z_]+[,}]/.test(text), `${language} ${name} has an unfilled placeholder: ${text}`);
        if (text.startsWith('<!doctype html>'))
          assert.match(text, new RegExp(`<html lang="${language}"`), `${language} ${name}`);
        const leaked = foreign.filter((piece) => text.includes(piece));
        assert.deepEqual(leaked, [], `${language} ${name} shows English it should not`);
      }
    });
  }

  it('offers every language on every page, each named in its own words, the current one marked', () => {
    const home = renderHome(settings, undefined, kinds, 'de');
    for (const language of LANGUAGES) {
      const name = catalogueOf(language)['language.name'] ?? '';
      assert.ok(home.includes(`href="/privacy-center?lang=${language}" lang="${language}"`), language);
      assert.ok(home.includes(`>${name}</a>`), name);
    }
    assert.match(
      home,
      /<a href="\/privacy-center\?lang=de" lang="de" hreflang="de" aria-current="true">Deutsch<\/a>/,
    );
    assert.match(home, /<nav class="languages" aria-label="Sprache">/);
  });
});
