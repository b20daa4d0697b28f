// The public pages' kit: every page a data subject, an agent or a respondent opens (the privacy center, a
// request's status, the code form, confirm-agent, appeal, the respondent's form, every problem page) is
// one `layout` around its body, under one Content-Security-Policy and one stylesheet (style.ts). The pages
// are plain HTML forms without script, so they work with any browser, keyboard and screen reader.
//
// Text: a page's frame carries `text`, the one function its words go through (as written today; a
// translation plugs in there) and `lang`, the language the page says it is in. The kit's own words (the
// problem pages' headings) go through it; values are escaped with escapeHtml, never passed to `text`.
import { escapeHtml } from '../validation/html.ts';

/** The one place a page's words go through: as written (English) unless a translation is given. */
export type PageText = (words: string) => string;
export const asWritten: PageText = (words) => words;

/** What frames every page: who speaks, where home is, and in which language. */
export interface PageFrame {
  organization: string;
  /** The link at the page's foot (the privacy center's home), or none (a respondent's page). */
  home?: { title: string; href: string };
  lang: string;
  text: PageText;
}

/** The frame of a privacy center page, from its published settings. */
export function privacyCenterFrame(
  settings: { organization_name: string; title: string },
  text: PageText = asWritten,
  lang = 'en',
): PageFrame {
  return {
    organization: settings.organization_name,
    home: { title: settings.title, href: '/privacy-center' },
    lang,
    text,
  };
}

/** The frame of a page outside the privacy center's menu (a respondent's form): no link home. */
export function plainFrame(organization: string, text: PageText = asWritten, lang = 'en'): PageFrame {
  return { organization, lang, text };
}

export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where style.ts's stylesheet is served (privacy-center/page-routes.ts). */
export const PAGE_STYLESHEET = '/privacy-center/privacy-center.css';

/** A whole page around `body` (already HTML, its values escaped by the caller). */
export function layout(title: string, frame: PageFrame, body: string): string {
  const footer = frame.home
    ? `<footer><p><a href="${escapeHtml(frame.home.href)}">${escapeHtml(frame.home.title)}</a></p></footer>\n`
    : '';
  return `<!doctype html>
<html lang="${escapeHtml(frame.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${PAGE_STYLESHEET}">
</head>
<body>
<header class="banner"><p class="organization">${escapeHtml(frame.organization)}</p></header>
<main id="main">
${body}
</main>
${footer}</body>
</html>
`;
}

/** A page that only says what went wrong: a link or address that leads nowhere, or too many requests. */
export function renderProblem(frame: PageFrame, status: number, message: string): string {
  const heading = frame.text(
    status === 404 ? 'Not found' : status === 429 ? 'Please wait a moment' : 'Something is wrong',
  );
  return layout(heading, frame, `<h1>${escapeHtml(heading)}</h1><p role="alert">${escapeHtml(message)}</p>`);
}
