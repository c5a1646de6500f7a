// The pages' one stylesheet, inlined (no asset route, no build step) and allowed by its hash in the CSP. Readable
// from 360 px wide up: one column, wrapping long values, tables that become stacked rows on narrow screens;
// focus always visible; state is said in words, colour only repeats it. The dashboard's pages are wider (a task
// list's five columns), so a task's title keeps room instead of wrapping over four lines.
export const STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff}
body{margin:0}
header,main,footer{max-width:48rem;margin:0 auto;padding:0.75rem 1rem}
header{display:flex;flex-wrap:wrap;gap:0.5rem 1rem;align-items:center;justify-content:space-between;border-bottom:1px solid #d0d7de}
header .brand{font-weight:700;text-decoration:none;color:inherit}
header form{margin:0}
nav.account{display:flex;flex-wrap:wrap;gap:0.25rem 1rem}
h1{font-size:1.5rem;margin:1rem 0 0.5rem}
h2{font-size:1.2rem;margin:1.5rem 0 0.5rem}
p,li,label,code{overflow-wrap:break-word}
td[data-label=Name],td[data-label=App]{overflow-wrap:anywhere}
a{color:#0550ae}
label{display:block;font-weight:600;margin:0.75rem 0 0.25rem}
input,select,button,textarea{font:inherit;max-width:100%}
input[type=text],input[type=email],select{width:100%;padding:0.5rem;border:1px solid #57606a;border-radius:4px}
button{white-space:nowrap;padding:0.5rem 1rem;border:1px solid #1b1f24;border-radius:4px;background:#f6f8fa;color:#1b1f24;cursor:pointer;margin-top:0.75rem}
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}
button.danger{background:#fff;border-color:#b42318;color:#b42318}
:focus-visible{outline:3px solid #bf8700;outline-offset:2px}
.notice,.error,.secret{border:2px solid;border-radius:4px;padding:0.75rem 1rem;margin:1rem 0}
.notice{border-color:#1a7f37}
.error{border-color:#b42318}
.secret{border-color:#bf8700}
.secret textarea{display:block;width:100%;resize:none;padding:0.5rem;border:1px solid #57606a;border-radius:4px;font:1rem/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;word-break:break-all}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hint{color:#57606a;font-size:0.9rem}
table{width:100%;border-collapse:collapse}
th{white-space:nowrap}
th,td{text-align:left;padding:0.5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
td form{margin:0}
td button{margin-top:0}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:0.5rem;background:#fff;padding:0.25rem 0.5rem}
nav.workspaces,nav.sections,.workspace{max-width:48rem;margin:0 auto;padding:0.25rem 1rem}
body.dashboard>header,body.dashboard>main,body.dashboard>nav,body.dashboard>.workspace{max-width:72rem}
table.tasks td[data-label=Task]{min-width:16rem}
time{white-space:nowrap}
nav ul{display:flex;flex-wrap:wrap;gap:0.25rem 1rem;list-style:none;margin:0;padding:0}
nav.workspaces{display:flex;flex-wrap:wrap;gap:0.5rem}
nav.sections{border-bottom:1px solid #d0d7de}
nav.sections a{display:inline-block;padding:0.5rem 0}
nav a[aria-current]{font-weight:700;text-decoration-thickness:3px}
.badge{display:inline-block;border:1px solid #57606a;border-radius:1rem;padding:0 0.5rem;font-size:0.85rem;white-space:nowrap;background:#f6f8fa}
.badge.running,.badge.queued{border-color:#0550ae}
.badge.failed{border-color:#b42318}
.badge.completed,.badge.merged{border-color:#1a7f37}
textarea{width:100%;min-height:6rem;padding:0.5rem;border:1px solid #57606a;border-radius:4px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:0.25rem 1rem;margin:0.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
ol.conversation{list-style:none;margin:0;padding:0}
ol.conversation>li{border:1px solid #d0d7de;border-left-width:6px;border-radius:4px;margin:0.75rem 0;padding:0.5rem 0.75rem}
ol.conversation>li.user{border-left-color:#0550ae;margin-left:1.5rem}
ol.conversation>li.agent{border-left-color:#1a7f37;margin-right:1.5rem}
ol.conversation>li.platform{border-left-style:dashed;border-left-color:#57606a;background:#f6f8fa}
ol.conversation .meta{margin:0}
ol.conversation .who{font-weight:700}
ol.conversation .body{overflow-wrap:anywhere;margin:0.25rem 0 0}
.markdown>:first-child{margin-top:0}
.markdown>:last-child{margin-bottom:0}
.markdown pre{overflow-x:auto;background:#f6f8fa;padding:0.5rem;border-radius:4px}
.markdown code{font-family:ui-monospace,monospace;font-size:0.9em}
.markdown blockquote{margin:0.5rem 0;padding-left:0.75rem;border-left:3px solid #d0d7de;color:#57606a}
.markdown table{width:auto}
.markdown .align-right{text-align:right}
.markdown .align-center{text-align:center}
details.turn-activity{border:1px solid #d0d7de;border-radius:4px;margin:0.75rem 0;padding:0.5rem 0.75rem}
details.turn-activity summary{cursor:pointer;font-weight:600}
ol.activity{list-style:none;margin:0.5rem 0 0;padding:0}
ol.activity>li{border-top:1px solid #d0d7de;padding:0.375rem 0;overflow-wrap:anywhere}
ol.activity .label{font-weight:600;margin:0}
ol.activity .status{font-style:italic}
ol.activity .paths{font-family:ui-monospace,monospace;font-size:0.85rem}
ol.plan-entries{margin:0.25rem 0;padding-left:1.25rem}
.pager{display:flex;gap:1rem;margin:1rem 0}
form.inline{display:inline}
@media (max-width:40rem){
  ol.conversation>li.user,ol.conversation>li.agent{margin-left:0;margin-right:0}
  .markdown table{display:table;width:auto}
  .markdown thead{position:static;width:auto;height:auto;overflow:visible;clip:auto;display:table-header-group}
  .markdown tbody{display:table-row-group}
  .markdown tr{display:table-row;padding:0}
  .markdown th,.markdown td{display:table-cell;width:auto;padding:0.25rem}
  thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table,tbody,tr,td{display:block;width:100%}
  tr{border-bottom:1px solid #d0d7de;padding:0.5rem 0}
  td{border:0;padding:0.125rem 0}
  td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
}
`;
