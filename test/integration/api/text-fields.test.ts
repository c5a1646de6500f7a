// Issue 21, G: prompts, follow-ups and titles refuse NUL, C0 controls other than tab, line feed and carriage
// return, DEL and C1 controls (issue 35, C.17), and lone surrogates with the field's 400 code (reference section 7: invalid_prompt for prompt and text,
// invalid_title for title); titles also refuse bidirectional override and isolate controls. Through
// app.request() (the bodies are raw JSON text, so `\ud800` reaches JSON.parse as the escape a client sends), and
// once through a real `baton serve` socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED, type ApiHarness, createApiHarness, freshToken, TOKENS, waitForStatus } from "./harness.js";
import { createSocketClient } from "./socket-client.js";

let h: ApiHarness;
let serve: ServeHandle;
let client: ReturnType<typeof createSocketClient>;
beforeAll(async () => {
  [h, serve] = await Promise.all([createApiHarness(), startServe({ seed: API_SEED })]);
  client = createSocketClient(serve.url);
});
afterAll(async () => {
  client?.close();
  await serve?.stop();
  await killLeftoverServes();
  await h?.close();
});

/** Starts a task with `rawBody` as sent; an accepted one is followed to its reply, so the 5-task limit never bites. */
async function start(rawBody: string) {
  const answer = await h.call("POST", API_PATHS.tasks("ws_acme"), {
    token: await freshToken(h),
    body: rawBody,
  });
  if (answer.status === 202) await waitForStatus(h, answer.body.task.id, ["replied"]);
  return answer;
}

// Each row: the case, the raw JSON text of the field's value (escapes as a client writes them).
const REFUSED_EVERYWHERE = [
  ["NUL", String.raw`"fix\u0000it"`, "NUL (U+0000)"],
  ["escape (U+001B, starts terminal sequences)", String.raw`"red \u001b[31m"`, "U+001B"],
  ["backspace", String.raw`"a\bb"`, "U+0008"],
  ["vertical tab", String.raw`"a\u000bb"`, "U+000B"],
  ["form feed", String.raw`"a\fb"`, "U+000C"],
  ["DEL (U+007F)", String.raw`"a\u007fb"`, "DEL control character (U+007F)"],
  ["next line (U+0085, a C1 control)", String.raw`"a\u0085b"`, "C1 control character (U+0085)"],
  ["CSI (U+009B, the C1 form of ESC [), sent as raw UTF-8", `"red \u009b31m"`, "U+009B"],
  ["a lone high surrogate (the raw JSON escape \ud800)", String.raw`"ab\ud800cd"`, "lone surrogate"],
  ["a lone low surrogate (\udc00)", String.raw`"\udc00"`, "lone surrogate"],
  ["a pair the wrong way round (\ude00\ud83d)", String.raw`"\ude00\ud83d"`, "lone surrogate"],
] as const;

const BIDI = [
  ["U+202A", String.raw`"a\u202ab"`],
  ["U+202B", String.raw`"a\u202bb"`],
  ["U+202C", String.raw`"a\u202cb"`],
  ["U+202D", String.raw`"a\u202db"`],
  ["U+202E (right-to-left override)", String.raw`"invoice\u202efdp.exe"`],
  ["U+2066", String.raw`"a\u2066b"`],
  ["U+2067", String.raw`"a\u2067b"`],
  ["U+2068", String.raw`"a\u2068b"`],
  ["U+2069", String.raw`"a\u2069b"`],
] as const;

describe("POST .../tasks: prompt", () => {
  it.each(REFUSED_EVERYWHERE)("%s gives 400 invalid_prompt", async (_case, raw, named) => {
    const answer = await start(`{"prompt":${raw}}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_prompt");
    expect(answer.body.reason).toContain(named);
  });

  it.each([
    ["tab, line feed and carriage return", String.raw`"step 1\tdo\r\nstep 2"`, "step 1\tdo\r\nstep 2"],
    ["an emoji written as its surrogate pair escape", String.raw`"ship \ud83d\ude00"`, "ship 😀"],
    [
      "a right-to-left override (allowed in prompts)",
      String.raw`"quote \u202eabc\u202c"`,
      "quote \u202eabc\u202c",
    ],
    ["right-to-left letters", `"שלום عالم"`, "שלום عالم"],
  ])("%s is accepted and kept as sent", async (_case, raw, kept) => {
    const answer = await start(`{"prompt":${raw}}`);
    expect(answer.status).toBe(202);
    const messages = await h.call("GET", API_PATHS.messages("ws_acme", answer.body.task.id));
    expect(messages.body.messages[0]).toMatchObject({ role: "user", body: kept });
  });
});

describe("POST .../tasks: title", () => {
  it.each([...REFUSED_EVERYWHERE, ...BIDI.map(([c, raw]) => [c, raw, c.slice(0, 6)] as const)])(
    "%s gives 400 invalid_title",
    async (_case, raw, named) => {
      const answer = await start(`{"prompt":"fix it","title":${raw}}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe("invalid_title");
      expect(answer.body.reason).toContain(named);
    },
  );

  it("a title with a tab and an emoji is accepted and echoed back", async () => {
    const answer = await start(String.raw`{"prompt":"fix it","title":"fix\tit \ud83d\ude00"}`);
    expect(answer.status).toBe(202);
    expect(answer.body.task.title).toBe("fix\tit 😀");
    expect((await h.call("GET", API_PATHS.task("ws_acme", answer.body.task.id))).body.title).toBe(
      "fix\tit 😀",
    );
  });

  it("no task is made by a refused start", async () => {
    const before = ((await h.db.get("SELECT count(*) AS n FROM tasks")) as { n: number }).n;
    await start(String.raw`{"prompt":"fix it","title":"\u202e"}`);
    await start(String.raw`{"prompt":"\u0000"}`);
    expect(((await h.db.get("SELECT count(*) AS n FROM tasks")) as { n: number }).n).toBe(before);
  });
});

describe("POST .../tasks/{taskId}/messages: text", () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = (await start(`{"prompt":"a task to follow up on"}`)).body.task.id;
  });

  it.each(REFUSED_EVERYWHERE)("%s gives 400 invalid_prompt", async (_case, raw, named) => {
    const answer = await h.call("POST", API_PATHS.messages("ws_acme", taskId), {
      token: await freshToken(h),
      body: `{"text":${raw}}`,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_prompt");
    expect(answer.body.reason).toContain(named);
  });

  it("a follow-up may quote a right-to-left override (only titles refuse it)", async () => {
    const answer = await h.call("POST", API_PATHS.messages("ws_acme", taskId), {
      token: await freshToken(h),
      body: String.raw`{"text":"see \u202efdp.exe"}`,
    });
    expect(answer.status).toBe(202);
  });
});

describe("the same rule over a real socket (baton serve)", () => {
  it.each([
    ["prompt", String.raw`{"prompt":"fix\u0000it"}`, "invalid_prompt"],
    ["prompt", String.raw`{"prompt":"fix \ud800 it"}`, "invalid_prompt"],
    ["title", String.raw`{"prompt":"fix it","title":"invoice\u202efdp.exe"}`, "invalid_title"],
    ["title", String.raw`{"prompt":"fix it","title":"half \udbff"}`, "invalid_title"],
  ])("%s %s gives 400 %s", async (_field, raw, code) => {
    const answer = await client.call("POST", API_PATHS.tasks("ws_acme"), { token: TOKENS.owner, body: raw });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(code);
  });
});
