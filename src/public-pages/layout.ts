// The public pages' kit: every page a data subject, an agent or a respondent opens (the privacy center, a
// request's status, the code form, confirm-agent, appeal, the respondent's form, every problem page) is
// one `layout` around its body, under one Content-Security-Policy and one stylesheet (style.ts). The pages
// are plain HTML forms without script, so they work with any browser, keyboard and screen reader.
//
// Words: a page's frame says its language (`lang`); the words themselves go through the catalogue of
// src/i18n/ (words.ts's `wordsOf`, with the language switcher), and values are escaped here or by the caller.
import { escapeHtml } from '../validation/html.ts';

/** What frames every page: who speaks, in which language, and where home is. */
export interface PageFrame {
  organization: string;
  lang: string;
  /** HTML under the organization's name (the language switcher), already escaped. */
  navigation?: string;
  /** The link at the page's foot (the privacy center's home), or none (a respondent's page). */
  home?: { title: string; href: string };
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
  const navigation = frame.navigation ? `\n${frame.navigation}` : '';
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
<header class="banner"><p class="organization">${escapeHtml(frame.organization)}</p>${navigation}</header>
<main id="main">
${body}
</main>
${footer}</body>
</html>
`;
}
