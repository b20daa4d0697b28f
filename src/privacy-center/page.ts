// The privacy center page, rendered on the server as plain HTML forms through the public pages' kit
// (src/public-pages/): no script at all, so it works with any browser, keyboard and screen reader, and its
// Content-Security-Policy can forbid every script. It shows the published actions, a request's stage and
// the code form; never operator data, and no identity except the one the visitor has just typed (given back
// when a form must be corrected).
import { escapeHtml } from '../validation/html.ts';
import { notice as noticeOf, problemNotice } from '../public-pages/forms.ts';
import { layout, privacyCenterFrame } from '../public-pages/layout.ts';
import type { PrivacyCenterAction, PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';
import { MAX_CORRECTION_ATTRIBUTE_LENGTH, MAX_CORRECTION_VALUE_LENGTH } from '../corrections/schemas.ts';
import type { FormKinds, PublicRequestView, Stage } from './submission.ts';

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
    /** Every row of the form, in order, given back as typed. */
    corrections?: readonly CorrectionRow[];
  };
}

function actionForm(
  action: PrivacyCenterAction,
  index: number,
  problem: FormProblem | undefined,
  kinds: FormKinds,
): string {
  const optOut = kinds.optOuts.has(action.policy_key);
  const mine = problem?.policyKey === action.policy_key ? problem : undefined;
  const field = (name: 'email' | 'phone_number', label: string, type: string, autocomplete: string) => {
    const requirement = action.identity_inputs[name];
    if (!requirement) return '';
    const id = `${name}-${index}`;
    const hint =
      name === 'phone_number'
        ? `<span class="hint" id="${id}-hint">International format, such as +14155550123</span>`
        : '';
    return `<p class="field"><label for="${id}">${label}${requirement === 'optional' ? ' (optional)' : ''}</label>
${hint}<input id="${id}" name="${name}" type="${type}" autocomplete="${autocomplete}" maxlength="${name === 'email' ? 320 : 16}"${requirement === 'required' ? ' required' : ''}${hint ? ` aria-describedby="${id}-hint"` : ''} value="${escapeHtml(mine?.values[name] ?? '')}"></p>`;
  };
  return `<section class="action" aria-labelledby="action-${index}">
<h2 id="action-${index}">${escapeHtml(action.title)}</h2>
${action.description ? `<p>${escapeHtml(action.description)}</p>` : ''}
${optOut ? '<p class="hint">No code is needed: we stop selling or sharing your personal information within 15 business days. A Global Privacy Control signal from your browser counts as this request too.</p>' : ''}
${mine ? problemNotice(mine.message, `problem-${index}`) : ''}
<form method="post" action="/privacy-center/requests">
<input type="hidden" name="policy_key" value="${escapeHtml(action.policy_key)}">
${field('email', 'Email address', 'email', 'email')}
${field('phone_number', 'Phone number', 'tel', 'tel')}
${kinds.corrections.has(action.policy_key) ? correctionFields(index, mine) : ''}
${agentFields(index, mine)}
<p><button type="submit">${optOut ? 'Do not sell or share my personal information' : 'Send this request'}</button></p>
</form>
</section>`;
}

/**
 * What a correction asks to write: a few rows of attribute and value, mapped by the form's post into the
 * request's `corrections`. An update rule names no attributes (policies/service.ts refuses its targets),
 * so the attribute is typed, not picked; the submission checks it against what the datastores hold.
 */
function correctionFields(index: number, mine: FormProblem | undefined): string {
  const rows = Array.from({ length: CORRECTION_ROWS }, (_, offset) => {
    const row = offset + 1;
    const typed = mine?.values.corrections?.[offset];
    const id = `correction-${index}-${row}`;
    return `<div class="correction">
<p class="field"><label for="${id}-attribute">Item ${row}: what to correct</label>
<input id="${id}-attribute" name="${CORRECTION_FIELDS.attribute(row)}" type="text" autocomplete="off" spellcheck="false" maxlength="${MAX_CORRECTION_ATTRIBUTE_LENGTH}" aria-describedby="corrections-hint-${index}"${row === 1 ? ' required' : ''} value="${escapeHtml(typed?.attribute ?? '')}"></p>
<p class="field"><label for="${id}-value">Item ${row}: the right value</label>
<input id="${id}-value" name="${CORRECTION_FIELDS.value(row)}" type="text" autocomplete="off" maxlength="${MAX_CORRECTION_VALUE_LENGTH}" value="${escapeHtml(typed?.value ?? '')}"></p>
</div>`;
  });
  return `<fieldset class="corrections"><legend>What should we correct?</legend>
<p class="hint" id="corrections-hint-${index}">Name each piece of information as table.attribute, such as users.name, and give its right value. Give at least one; empty items are left out.</p>
${rows.join('\n')}
<p class="hint">A person reviews every correction before anything is changed.</p>
</fieldset>`;
}

/** An authorized agent's own name and email, folded away (no script: a details element). */
function agentFields(index: number, mine: FormProblem | undefined): string {
  const open = mine?.values.agent_email || mine?.values.agent_name ? ' open' : '';
  return `<details class="agent"${open}><summary>I am an authorized agent acting for this person</summary>
<p class="hint">We send the code to you, then email the person you act for a link to confirm you. Nothing happens until they do.</p>
<p class="field"><label for="agent_name-${index}">Your name (agent)</label>
<input id="agent_name-${index}" name="agent_name" type="text" autocomplete="name" maxlength="200" value="${escapeHtml(mine?.values.agent_name ?? '')}"></p>
<p class="field"><label for="agent_email-${index}">Your email (agent)</label>
<input id="agent_email-${index}" name="agent_email" type="email" autocomplete="email" maxlength="320" value="${escapeHtml(mine?.values.agent_email ?? '')}"></p>
</details>`;
}

const PLAIN_FORMS: FormKinds = { optOuts: new Set(), corrections: new Set() };

/** `kinds`: the published actions whose forms are opt-outs or ask what to correct. */
export function renderHome(
  settings: PrivacyCenterSettings,
  problem?: FormProblem,
  kinds: FormKinds = PLAIN_FORMS,
): string {
  const general = problem && !settings.actions.some((action) => action.policy_key === problem.policyKey);
  const body = `<h1>${escapeHtml(settings.title)}</h1>
<p>Ask ${escapeHtml(settings.organization_name)} about the personal data it holds about you. Choose what you want, give the contact details it asks for, and we will send you a code to confirm that they are yours.</p>
${general ? problemNotice(problem.message) : ''}
${
  settings.actions.length === 0
    ? '<p>No request can be made here yet.</p>'
    : settings.actions.map((action, index) => actionForm(action, index, problem, kinds)).join('\n')
}`;
  return layout(settings.title, privacyCenterFrame(settings), body);
}

const STAGES: readonly { stage: Stage; label: string }[] = [
  { stage: 'received', label: 'Received' },
  { stage: 'verified', label: 'Verified' },
  { stage: 'in_progress', label: 'In progress' },
  { stage: 'done', label: 'Done' },
];

const STAGE_SENTENCES: Record<Stage, string> = {
  received: 'We received your request.',
  verified: 'Your email address is verified; your request awaits review.',
  in_progress: 'We are working on your request.',
  done: 'Your request is done. We sent you an email with the result.',
  denied: 'Your request was declined. We sent you an email with the reason.',
  canceled: 'Your request was canceled. We sent you an email with the reason.',
};

export function renderStanding(
  settings: PrivacyCenterSettings,
  request: PublicRequestView,
  notice?: { kind: 'problem' | 'info'; message: string },
): string {
  const closed = request.stage === 'denied' || request.stage === 'canceled';
  const reached = STAGES.findIndex((entry) => entry.stage === request.stage);
  const progress = closed
    ? ''
    : `<ol class="stages">${STAGES.map(
        (entry, index) =>
          `<li class="${index < reached ? 'past' : index === reached ? 'current' : 'future'}"${index === reached ? ' aria-current="step"' : ''}>${entry.label}${index < reached ? '<span class="visually-hidden"> (done)</span>' : ''}</li>`,
      ).join('')}</ol>`;
  const verification = request.awaiting_agent_confirmation
    ? `<section aria-labelledby="confirm-title">
<h2 id="confirm-title">Waiting for the person you act for</h2>
<p>Your email address is verified. We emailed the person you act for a link to confirm that you do; nothing happens until they confirm.</p>
</section>`
    : request.status === 'identity_unverified'
      ? `<section aria-labelledby="verify-title">
<h2 id="verify-title">Confirm your email address</h2>
<p>We sent a 6-digit code to your email address. Type it here.</p>
<form method="post" action="/privacy-center/requests/${encodeURIComponent(request.id)}/verify">
<p class="field"><label for="code">Verification code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" minlength="6" maxlength="6" required></p>
<p><button type="submit">Verify</button></p>
</form>
<form method="post" action="/privacy-center/requests/${encodeURIComponent(request.id)}/resend">
<p><button type="submit" class="secondary">Send a new code</button></p>
</form>
</section>`
      : '';
  const body = `<h1>Your request</h1>
<p class="summary">${escapeHtml(request.action_title)}, sent ${escapeHtml(request.requested_at.slice(0, 16).replace('T', ' '))} UTC</p>
${notice ? noticeOf(notice.kind, notice.message) : ''}
<p class="stage" id="stage">Status: <strong>${escapeHtml(STAGE_SENTENCES[request.stage])}</strong></p>
${progress}
${verification}
<p>Keep the address of this page to follow your request. Reference: <code>${escapeHtml(request.id)}</code></p>
<p><a href="/privacy-center/requests/${encodeURIComponent(request.id)}">Refresh the status</a></p>`;
  return layout(`Your request: ${request.action_title}`, privacyCenterFrame(settings), body);
}
