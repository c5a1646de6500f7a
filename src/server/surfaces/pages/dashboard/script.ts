// The dashboard's one script, served from our origin at DASHBOARD_SCRIPT_PATH (the pages' CSP allows
// `script-src 'self'` on the dashboard only). Progressive enhancement: every page works without it. On a task
// page it polls the updates address every 3 s, appending new entries and refreshing the status without reloading
// or touching any form field, so what the user is typing is never lost. It leaves times as the server wrote them
// (format.ts: one form, in UTC with the zone, on every page, the tokens pages' included, which run no script). Kept as text here: the server is tsc's output and copies no asset files.
import type { Context } from "hono";

export const POLL_INTERVAL_MS = 3_000;

export const DASHBOARD_SCRIPT = `"use strict";
(function () {
  function replaceIfChanged(id, markup) {
    var node = document.getElementById(id);
    if (node && typeof markup === "string" && node.innerHTML !== markup) {
      node.innerHTML = markup;
    }
  }
  function poll(list) {
    var url = list.getAttribute("data-updates");
    var last = list.getAttribute("data-last");
    fetch(url + (last ? "?after=" + encodeURIComponent(last) : ""), {
      credentials: "same-origin",
      headers: { accept: "application/json" },
    })
      .then(function (answer) { return answer.ok ? answer.json() : null; })
      .then(function (update) {
        if (update) {
          if (update.entries) {
            var holder = document.createElement("ol");
            holder.innerHTML = update.entries;
            while (holder.firstChild) list.appendChild(holder.firstChild);
            var empty = document.getElementById("no-entries");
            if (empty) empty.remove();
          }
          if (update.last) list.setAttribute("data-last", update.last);
          replaceIfChanged("task-status", update.status);
          replaceIfChanged("task-pr", update.pullRequest);
          replaceIfChanged("task-activity", update.lastActivity);
          replaceIfChanged("task-actions", update.actions);
        }
      })
      .catch(function () {})
      .then(function () { setTimeout(function () { poll(list); }, ${POLL_INTERVAL_MS}); });
  }
  var list = document.querySelector("ol[data-updates]");
  if (list) setTimeout(function () { poll(list); }, ${POLL_INTERVAL_MS});
})();
`;

/** GET DASHBOARD_SCRIPT_PATH: the script, cacheable briefly (it changes only with the service). */
export const serveDashboardScript = (c: Context): Response =>
  c.body(DASHBOARD_SCRIPT, 200, {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=300",
    "x-content-type-options": "nosniff",
  });
