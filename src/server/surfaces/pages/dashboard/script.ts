// The dashboard's one script, served from our origin at DASHBOARD_SCRIPT_PATH (the pages' CSP allows
// `script-src 'self'` on the dashboard only). Progressive enhancement: every page works without it. It shows
// times in the viewer's time zone (the ISO value stays in `title`), and on a task page polls the updates address
// every 3 s, appending new entries and refreshing the status without reloading or touching any form field, so
// what the user is typing is never lost. Kept as text here: the server is tsc's output and copies no asset files.
import type { Context } from "hono";

export const POLL_INTERVAL_MS = 3_000;

export const DASHBOARD_SCRIPT = `"use strict";
(function () {
  var format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  function localise(root) {
    var times = root.querySelectorAll("time[datetime]");
    for (var i = 0; i < times.length; i++) {
      var when = new Date(times[i].getAttribute("datetime"));
      if (!isNaN(when.getTime())) times[i].textContent = format.format(when);
    }
  }
  function replaceIfChanged(id, markup) {
    var node = document.getElementById(id);
    if (node && typeof markup === "string" && node.innerHTML !== markup) {
      node.innerHTML = markup;
      localise(node);
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
            localise(holder);
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
  localise(document);
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
