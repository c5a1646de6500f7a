// The dashboard's hostile-text crawl (issue 34, point 4: "the tests' hostile-text crawl covers it"): hostile text
// planted in every place a task's pages show text from people or agents (title, prompt, follow-up, the agent's
// Markdown reply, a platform error quoting the agent, and every field of a turn's activity), then every page and
// polling answer of the task crawled: nothing in them is live (liveHazards: no script but our own, no element that
// loads, no on* handler, no inline style, no javascript:, data: or other unsafe address), the hostile text is
// there as text, and the Markdown still renders. Through the real service; the agent is one the test answers
// (gated-agent.ts), since the point is what the pages make of whatever an agent returns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActivityRecord } from "../../../src/server/adapters/agents/port.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import {
  DASHBOARD_SCRIPT_PATH,
  newTaskPath,
  taskPath,
  tasksPath,
  taskUpdatesPath,
} from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { startWebSession } from "../../../src/server/surfaces/pages/session.js";
import { LAYOUT_HEAD_TAGS, liveHazards, splitPage } from "../../helpers/live-html.js";
import { createGatedAgent, reply } from "../api/gated-agent.js";
import { type ApiHarness, createApiHarness, freshToken, until, waitForStatus } from "../api/harness.js";

const WS = "ws_acme";
const AT = "2026-11-28T10:00:00.000Z";

/** Each line hostile on its own, as text, as Markdown or as an attribute value. */
const HOSTILE = [
  `<script>alert("script")</script>`,
  `<img src=x onerror=alert("img")>`,
  `<svg onload=alert("svg")></svg>`,
  `<iframe src="https://evil.test/frame"></iframe>`,
  `<style>body{display:none}</style>`,
  `<a href="javascript:alert('raw-a')">raw link</a>`,
  `[md link](javascript:alert("md"))`,
  `[upper](JAVASCRIPT:alert("upper"))`,
  `[entity](&#106;avascript:alert("entity"))`,
  `<javascript:alert("auto")>`,
  `[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
  `![pixel](data:image/png;base64,iVBORw0KGgo=)`,
  `![tracker](https://evil.test/pixel.png)`,
  `" onmouseover="alert('quote')" x="`,
  "```js\" onclick=\"alert('fence')\nalert(1)\n```",
].join("\n\n");
/** Markdown that must still render, so the crawl is of rendered Markdown and not of escaped text alone. */
const RENDERED = "**still bold** and `still code`";
const TEXT = `${RENDERED}\n\n${HOSTILE}`;

const hostileRecords: ActivityRecord[] = [
  {
    at: AT,
    kind: "tool_call",
    data: {
      toolCallId: HOSTILE,
      title: HOSTILE,
      kind: `<script>alert("kind")</script>`,
      status: `" onclick="alert('status')`,
      locations: [{ path: `<img src=x onerror=alert("path")>` }],
      content: [{ type: "diff", path: "javascript:alert('diff')" }],
    },
  },
  { at: AT, kind: "plan", data: { entries: [{ content: HOSTILE, status: HOSTILE, priority: HOSTILE }] } },
  { at: AT, kind: "agent_message_chunk", data: { text: TEXT } },
  { at: AT, kind: "agent_thought_chunk", data: { text: TEXT } },
  {
    at: AT,
    kind: "permission",
    data: {
      toolCall: { title: HOSTILE },
      options: [{ optionId: "o", name: HOSTILE }],
      outcome: { outcome: "selected", optionId: "o" },
    },
  },
  { at: AT, kind: "baton_tool", data: { tool: HOSTILE, title: HOSTILE } },
  { at: AT, kind: `<img src=x onerror=alert("unknown-kind")>`, data: { note: HOSTILE } },
];

let h: ApiHarness;
const agent = createGatedAgent();
let cookie: string;
let taskId: string;

beforeAll(async () => {
  h = await createApiHarness({ tasks: { agent } });
  const token = await freshToken(h);
  const started = await h.call("POST", API_PATHS.tasks(WS), {
    token,
    body: { prompt: TEXT, title: `<img src=x onerror=alert("title")> [t](javascript:alert(1))` },
  });
  taskId = started.body.task.id;
  const answer = async (
    result: Parameters<(typeof agent.turns)[number]["answer"]>[0],
    statuses: string[],
  ) => {
    (await until(() => agent.waiting(taskId), "the turn to reach the agent")).answer(result);
    await waitForStatus(h, taskId, statuses);
  };
  await answer({ ...reply(TEXT), activity: hostileRecords }, ["replied"]);
  await h.call("POST", API_PATHS.messages(WS, taskId), { token, body: { text: TEXT } });
  // The platform's error entry quotes the agent's reason.
  await answer({ kind: "error", code: "agent_failed", reason: HOSTILE, activity: hostileRecords }, [
    "failed",
  ]);
  const user = (await findUserByEmail(h.db, "dev@acme.test"))!;
  cookie = (await startWebSession(h.app.deps, user.id, false)).cookie;
});
afterAll(async () => {
  await h?.close();
});

const get = async (path: string) => {
  const response = await h.app.listeners.public.request(path, { headers: { cookie } });
  expect(response.status, path).toBe(200);
  return response.text();
};

describe("the hostile-text crawl of a task's dashboard pages", () => {
  it("no page or polling answer holds anything live, Markdown-rendered entries and activity included", async () => {
    const pages: [string, string][] = [
      ["task list", await get(tasksPath(WS))],
      ["new task", await get(newTaskPath(WS))],
      ["task page", await get(taskPath(WS, taskId))],
    ];
    const updates = JSON.parse(await get(taskUpdatesPath(WS, taskId))) as Record<string, string | null>;
    for (const [name, value] of Object.entries(updates))
      if (typeof value === "string") pages.push([`updates.${name}`, value]);
    for (const [name, markup] of pages) {
      const { headTags, body } = splitPage(markup);
      expect(
        headTags.filter((tag) => !LAYOUT_HEAD_TAGS.has(tag)),
        `${name}'s head`,
      ).toEqual([]);
      expect(
        headTags.filter((tag) => tag === "style"),
        `${name}'s head`,
      ).toHaveLength(markup === body ? 0 : 1);
      expect(liveHazards(body, [DASHBOARD_SCRIPT_PATH]), name).toEqual([]);
    }
  });

  it("the task page shows the hostile text as text, and the Markdown around it rendered", async () => {
    const page = await get(taskPath(WS, taskId));
    const conversation = page.slice(page.indexOf('id="conversation"'), page.indexOf('id="activity-heading"'));
    const activity = page.slice(page.indexOf('id="activity-heading"'));
    for (const part of [conversation, activity]) {
      expect(part).toContain("&lt;script&gt;alert(&quot;script&quot;)&lt;/script&gt;");
      expect(part).toContain("[md link](javascript:alert(&quot;md&quot;))");
      expect(part).toContain("<strong>still bold</strong> and <code>still code</code>");
    }
    // The image from an outside host is a link to it, never loaded.
    expect(page).toContain(
      '<a href="https://evil.test/pixel.png" rel="nofollow noopener noreferrer">image: tracker</a>',
    );
    expect(activity).toContain('<span class="status other">');
    // The polling answer carries the same entries as the page.
    const updates = JSON.parse(await get(taskUpdatesPath(WS, taskId))) as { entries: string };
    expect(updates.entries).toContain("<strong>still bold</strong>");
  });

  it("the pages carry the CSP that would stop anything the markup let through", async () => {
    const response = await h.app.listeners.public.request(taskPath(WS, taskId), { headers: { cookie } });
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self'");
  });
});
