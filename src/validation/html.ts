// Escaping text into HTML, for every page and message Lethe writes by hand (the privacy center's page, the
// subject's mails, the access report): the five characters that could open markup or leave an attribute.

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
