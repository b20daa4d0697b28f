// The privacy center page, rendered on the server as plain HTML forms through the public pages' kit
// (src/public-pages/): no script at all, so it works with any browser, keyboard and screen reader, and its Content-Security-Policy can forbid every script. It
// shows the published actions, a request's stage and the code form; never operator data, and no identity
// except the one the visitor has just typed (given back when a form must be corrected). Every word is the
// catalogue's, in the page's language (src/i18n/), with a switcher of plain links to the others (the kit's
// src/public-pages/words.ts).
import { AGENT_NAME_MAX_LENGTH } from '../agents/service.ts';
import { type MessageKey, translate } from '../i18n/catalogue.ts';
import { formatInstant } from '../i18n/dates.ts';
import { escapeHtml } from '../validation/html.ts';
import { layout as pageLayout, type PageFrame } from '../public-pages/layout.ts';
import { inLanguage, languageSwitcher, type PageContext, wordsOf } from '../public-pages/words.ts';
import type { PrivacyCenterAction, PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';
import { MAX_CORRECTION_ATTRIBUTE_LENGTH, MAX_CORRECTION_VALUE_LENGTH } from '../corrections/schemas.ts';
import type { FormKinds, PublicRequestView, Stage } from './submission.ts';
import { countriesIn, usStates } from './places.ts';

/** How many rows a correction form offers (CORRECTION_FIELDS names their fields). */
export const CORRECTION_ROWS = 3;
export const CORRECTION_FIELDS = {
  attribute: (row: number) => `correction_attribute_${row}`,
  value: (row: number) => `correction_value_${row}`,
};

/** One row of a correction form as the visitor typed it (both empty: a row left out). */
export interface CorrectionRow {
  attribute: string;
  value: string;
}

export interface FormProblem {
  policyKey: string;
  message: string;
  values: {
    email?: string;
    phone_number?: string;
    agent_name?: string;
    agent_email?: string;
    /** Where the visitor said they live: the country and the US state, as chosen. */
    country?: string;
    us_state?: string;
    /** Every row of the form, in order, given back as typed. */
    corrections?: readonly CorrectionRow[];
  };
}

/** A whole page of the privacy center around `body` (already HTML, its values escaped by the caller). */
export function layout(
  title: string,
  settings: PrivacyCenterSettings,
  body: string,
  page: PageContext,
): string {
  return pageLayout(title, privacyCenterFrame(settings, page), body);
}

/** The frame of a privacy center page: its language switcher, and its foot's link home in that language. */
export function privacyCenterFrame(settings: PrivacyCenterSettings, page: PageContext): PageFrame {
  return {
    organization: settings.organization_name,
    lang: page.language,
    navigation: languageSwitcher(page),
    home: { title: settings.title, href: inLanguage('/privacy-center', page.language) },
  };
}

function actionForm(
  action: PrivacyCenterAction,
  index: number,
  problem: FormProblem | undefined,
  kinds: FormKinds,
  language: string,
): string {
  const { say } = wordsOf(language);
  const optOut = kinds.optOuts.has(action.policy_key);
  const mine = problem?.policyKey === action.policy_key ? problem : undefined;
  const field = (name: 'email' | 'phone_number', type: string, autocomplete: string) => {
    const requirement = action.identity_inputs[name];
    if (!requirement) return '';
    const id = `${name}-${index}`;
    const hint =
      name === 'phone_number' ? `<span class="hint" id="${id}-hint">${say('form.phone_hint')}</span>` : '';
    const label = translate(language, name === 'email' ? 'form.email' : 'form.phone_number');
    return `<p class="field"><label for="${id}">${requirement === 'optional' ? say('form.optional', { label }) : escapeHtml(label)}</label>
${hint}<input id="${id}" name="${name}" type="${type}" autocomplete="${autocomplete}" maxlength="${name === 'email' ? 320 : 16}"${requirement === 'required' ? ' required' : ''}${hint ? ` aria-describedby="${id}-hint"` : ''} value="${escapeHtml(mine?.values[name] ?? '')}"></p>`;
  };
  return `<section class="action" aria-labelledby="action-${index}">
<h2 id="action-${index}">${escapeHtml(action.title)}</h2>
${action.description ? `<p>${escapeHtml(action.description)}</p>` : ''}
${optOut ? `<p class="hint">${say('form.opt_out_hint')}</p>` : ''}
${mine ? `<p class="problem" role="alert" id="problem-${index}">${escapeHtml(mine.message)}</p>` : ''}
<form method="post" action="${escapeHtml(inLanguage('/privacy-center/requests', language))}">
<input type="hidden" name="policy_key" value="${escapeHtml(action.policy_key)}">
${field('email', 'email', 'email')}
${field('phone_number', 'tel', 'tel')}
${locationFields(index, mine, language)}
${kinds.corrections.has(action.policy_key) ? correctionFields(index, mine, language) : ''}
${agentFields(index, mine, language)}
<p><button type="submit">${say(optOut ? 'form.opt_out_button' : 'form.send')}</button></p>
</form>
</section>`;
}

/**
 * What a correction asks to write: a few rows of attribute and value, mapped by the form's post into the
 * request's `corrections`. An update rule names no attributes (policies/service.ts refuses its targets),
 * so the attribute is typed, not picked; the submission checks it against what the datastores hold.
 */
function correctionFields(index: number, mine: FormProblem | undefined, language: string): string {
  const { say } = wordsOf(language);
  const rows = Array.from({ length: CORRECTION_ROWS }, (_, offset) => {
    const row = offset + 1;
    const typed = mine?.values.corrections?.[offset];
    const id = `correction-${index}-${row}`;
    return `<div class="correction">
<p class="field"><label for="${id}-attribute">${say('form.correction_attribute', { row })}</label>
<input id="${id}-attribute" name="${CORRECTION_FIELDS.attribute(row)}" type="text" autocomplete="off" spellcheck="false" maxlength="${MAX_CORRECTION_ATTRIBUTE_LENGTH}" aria-describedby="corrections-hint-${index}"${row === 1 ? ' required' : ''} value="${escapeHtml(typed?.attribute ?? '')}"></p>
<p class="field"><label for="${id}-value">${say('form.correction_value', { row })}</label>
<input id="${id}-value" name="${CORRECTION_FIELDS.value(row)}" type="text" autocomplete="off" maxlength="${MAX_CORRECTION_VALUE_LENGTH}" value="${escapeHtml(typed?.value ?? '')}"></p>
</div>`;
  });
  return `<fieldset class="corrections"><legend>${say('form.corrections_legend')}</legend>
<p class="hint" id="corrections-hint-${index}">${say('form.corrections_hint')}</p>
${rows.join('\n')}
<p class="hint">${say('form.corrections_review')}</p>
</fieldset>`;
}

/**
 * Where the person lives: the country, and the state for the United States (ISO 3166, stored as the
 * request's location). It decides whose law's clock runs (GET /v1/jurisdiction); left out, the policy's
 * jurisdiction applies, so it is asked, never forced. No script: two plain selects.
 */
function locationFields(index: number, mine: FormProblem | undefined, language: string): string {
  const { say } = wordsOf(language);
  const option = (code: string, name: string, chosen: string | undefined) =>
    `<option value="${escapeHtml(code)}"${chosen === code ? ' selected' : ''}>${escapeHtml(name)}</option>`;
  const countries = countriesIn(language)
    .map((place) => option(place.code, place.name, mine?.values.country))
    .join('');
  const states = usStates()
    .map((place) => option(place.code, `${place.name} (US-${place.code})`, mine?.values.us_state))
    .join('');
  return `<fieldset class="location"><legend>${say('form.location_legend')}</legend>
<p class="hint" id="location-hint-${index}">${say('form.location_hint')}</p>
<p class="field"><label for="country-${index}">${say('form.country')}</label>
<select id="country-${index}" name="country" autocomplete="country" aria-describedby="location-hint-${index}"><option value="">${say('form.location_none')}</option>${countries}</select></p>
<p class="field"><label for="us_state-${index}">${say('form.us_state')}</label>
<select id="us_state-${index}" name="us_state"><option value="">${say('form.us_state_none')}</option>${states}</select></p>
</fieldset>`;
}

/** An authorized agent's own name and email, folded away (no script: a details element). */
function agentFields(index: number, mine: FormProblem | undefined, language: string): string {
  const { say } = wordsOf(language);
  const open = mine?.values.agent_email || mine?.values.agent_name ? ' open' : '';
  return `<details class="agent"${open}><summary>${say('form.agent_summary')}</summary>
<p class="hint">${say('form.agent_hint')}</p>
<p class="field"><label for="agent_name-${index}">${say('form.agent_name')}</label>
<input id="agent_name-${index}" name="agent_name" type="text" autocomplete="name" maxlength="${AGENT_NAME_MAX_LENGTH}" value="${escapeHtml(mine?.values.agent_name ?? '')}"></p>
<p class="field"><label for="agent_email-${index}">${say('form.agent_email')}</label>
<input id="agent_email-${index}" name="agent_email" type="email" autocomplete="email" maxlength="320" value="${escapeHtml(mine?.values.agent_email ?? '')}"></p>
</details>`;
}

const PLAIN_FORMS: FormKinds = { optOuts: new Set(), corrections: new Set() };

/** `kinds`: the published actions whose forms are opt-outs or ask what to correct. */
export function renderHome(
  settings: PrivacyCenterSettings,
  problem?: FormProblem,
  kinds: FormKinds = PLAIN_FORMS,
  language = 'en',
): string {
  const { say } = wordsOf(language);
  const general = problem && !settings.actions.some((action) => action.policy_key === problem.policyKey);
  const body = `<h1>${escapeHtml(settings.title)}</h1>
<p>${say('home.intro', { organization: settings.organization_name })}</p>
${general ? `<p class="problem" role="alert">${escapeHtml(problem.message)}</p>` : ''}
${
  settings.actions.length === 0
    ? `<p>${say('home.no_actions')}</p>`
    : settings.actions.map((action, index) => actionForm(action, index, problem, kinds, language)).join('\n')
}`;
  return layout(settings.title, settings, body, { language, path: '/privacy-center' });
}

const STAGES: readonly { stage: Stage; label: MessageKey }[] = [
  { stage: 'received', label: 'standing.stage.received' },
  { stage: 'verified', label: 'standing.stage.verified' },
  { stage: 'in_progress', label: 'standing.stage.in_progress' },
  { stage: 'done', label: 'standing.stage.done' },
];

const STAGE_SENTENCES: Record<Stage, MessageKey> = {
  received: 'standing.sentence.received',
  verified: 'standing.sentence.verified',
  in_progress: 'standing.sentence.in_progress',
  done: 'standing.sentence.done',
  denied: 'standing.sentence.denied',
  canceled: 'standing.sentence.canceled',
};

export function renderStanding(
  settings: PrivacyCenterSettings,
  request: PublicRequestView,
  notice?: { kind: 'problem' | 'info'; message: string },
  language = 'en',
): string {
  const { say, markup } = wordsOf(language);
  const path = `/privacy-center/requests/${encodeURIComponent(request.id)}`;
  const closed = request.stage === 'denied' || request.stage === 'canceled';
  const reached = STAGES.findIndex((entry) => entry.stage === request.stage);
  const progress = closed
    ? ''
    : `<ol class="stages">${STAGES.map(
        (entry, index) =>
          `<li class="${index < reached ? 'past' : index === reached ? 'current' : 'future'}"${index === reached ? ' aria-current="step"' : ''}>${say(entry.label)}${index < reached ? `<span class="visually-hidden"> ${say('standing.stage_passed')}</span>` : ''}</li>`,
      ).join('')}</ol>`;
  const verification = request.awaiting_agent_confirmation
    ? `<section aria-labelledby="confirm-title">
<h2 id="confirm-title">${say('standing.agent_wait_title')}</h2>
<p>${say('standing.agent_wait_text')}</p>
</section>`
    : request.status === 'identity_unverified'
      ? `<section aria-labelledby="verify-title">
<h2 id="verify-title">${say('standing.verify_title')}</h2>
<p>${say('standing.verify_text')}</p>
<form method="post" action="${escapeHtml(inLanguage(`${path}/verify`, language))}">
<p class="field"><label for="code">${say('standing.code_label')}</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" minlength="6" maxlength="6" required></p>
<p><button type="submit">${say('standing.verify_button')}</button></p>
</form>
<form method="post" action="${escapeHtml(inLanguage(`${path}/resend`, language))}">
<p><button type="submit" class="secondary">${say('standing.resend_button')}</button></p>
</form>
</section>`
      : '';
  const body = `<h1>${say('standing.title')}</h1>
<p class="summary">${say('standing.summary', { action: request.action_title, date: formatInstant(language, new Date(request.requested_at)) })}</p>
${notice ? `<p class="${notice.kind}" role="${notice.kind === 'problem' ? 'alert' : 'status'}">${escapeHtml(notice.message)}</p>` : ''}
<p class="stage" id="stage">${markup('standing.status', { sentence: `<strong>${say(STAGE_SENTENCES[request.stage])}</strong>` })}</p>
${progress}
${verification}
<p>${markup('standing.keep_address', { reference: `<code>${escapeHtml(request.id)}</code>` })}</p>
<p><a href="${escapeHtml(inLanguage(path, language))}">${say('standing.refresh')}</a></p>`;
  return layout(
    translate(language, 'standing.page_title', { action: request.action_title }),
    settings,
    body,
    {
      language,
      path,
    },
  );
}

/** A page that only says what went wrong: a link or address that leads nowhere, or too many requests. */
export function renderProblem(
  settings: PrivacyCenterSettings,
  status: number,
  message: string,
  page: PageContext = { language: 'en', path: '/privacy-center' },
): string {
  const heading = translate(
    page.language,
    status === 404 ? 'problem.not_found' : status === 429 ? 'problem.wait' : 'problem.other',
  );
  return layout(
    heading,
    settings,
    `<h1>${escapeHtml(heading)}</h1><p role="alert">${escapeHtml(message)}</p>`,
    page,
  );
}
