// The one stylesheet of the public pages (layout.ts), served at PAGE_STYLESHEET: readable type, large
// targets, a visible focus ring, and nothing that needs a script.
export const PAGE_STYLE = `:root{color-scheme:light;--ink:#1b1b1b;--accent:#1d4ed8;--muted:#4b5563;--bad:#991b1b}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:1.0625rem;line-height:1.5;color:var(--ink);background:#f8fafc}
.banner{background:#0f172a;color:#fff;padding:.75rem 1rem}.banner p{margin:0;font-weight:600}
main{max-width:40rem;margin:0 auto;padding:1rem}
footer{max-width:40rem;margin:0 auto;padding:1rem}
h1{font-size:1.75rem;margin:.5rem 0 1rem}h2{font-size:1.25rem;margin:0 0 .5rem}
.action{background:#fff;border:1px solid #cbd5e1;border-radius:.5rem;padding:1rem;margin:1rem 0}
.field{display:flex;flex-direction:column;gap:.25rem}
label{font-weight:600}.hint{color:var(--muted);font-size:.95rem}
input{font:inherit;padding:.6rem .7rem;border:2px solid #64748b;border-radius:.375rem;width:100%;max-width:24rem;min-height:2.75rem}
textarea{font:inherit;padding:.6rem .7rem;border:2px solid #64748b;border-radius:.375rem;width:100%}
button{font:inherit;font-weight:600;padding:.6rem 1.1rem;min-height:2.75rem;border-radius:.375rem;border:2px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
a{color:var(--accent)}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.problem{color:var(--bad);border-left:4px solid var(--bad);padding:.25rem .75rem;background:#fef2f2}
.info{border-left:4px solid var(--accent);padding:.25rem .75rem;background:#eff6ff}
.stages{list-style:none;display:flex;flex-wrap:wrap;gap:.5rem;padding:0}
.stages li{padding:.3rem .7rem;border-radius:1rem;border:2px solid #94a3b8;color:var(--muted)}
.stages li.past{border-color:#15803d;color:#14532d}
.stages li.current{border-color:var(--accent);background:var(--accent);color:#fff;font-weight:600}
code{word-break:break-all}
fieldset.corrections{border:1px solid #cbd5e1;border-radius:.375rem;margin:.75rem 0;padding:.5rem .75rem;min-width:0}
fieldset.corrections legend{font-weight:600;padding:0 .25rem}.correction{margin:.5rem 0}
details.agent{margin:.75rem 0}details.agent summary{cursor:pointer;color:var(--accent);font-weight:600}
.languages ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem .75rem;margin:.5rem 0 0;padding:0}
.languages a{color:#fff}.languages a[aria-current]{font-weight:700;text-decoration:none}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
