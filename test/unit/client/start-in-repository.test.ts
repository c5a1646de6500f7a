// Rules 2 and 4 in process: the order repositories are tried in, what is said, and one idempotency key for every
// try of the invocation. The API is a stand-in recording calls (the black-box suites use a real service).
import { describe, expect, it } from "vitest";
import {
  type StartApi,
  type StartNotice,
  startInRepository,
} from "../../../src/client/start-in-repository.js";
import { ServiceError } from "../../../src/errors.js";

const CONNECTED = new Set(["acme/api", "acme/web"]);
const refusal = (wireError: string, extra: Record<string, string> = {}) =>
  new ServiceError("invalid_input", wireError, {
    status: 400,
    details: { status: 400, wireError, ...extra },
  });

function standIn() {
  const calls: { repo: string | null | undefined; key: string }[] = [];
  const api: StartApi = {
    startTask: async (_ws, body, key) => {
      calls.push({ repo: body.repo, key });
      if (body.repo && !CONNECTED.has(body.repo)) throw refusal("invalid_repo");
      return { task: { id: "task_1", repo: body.repo ?? null } as never, messageId: key };
    },
    getTask: async () => ({ id: "task_1" }) as never,
  };
  return { api, calls };
}

async function start(
  repoFlag: string | undefined,
  candidates: { remote: string; repo: string }[] | undefined,
) {
  const { api, calls } = standIn();
  const notices: StartNotice[] = [];
  const outcome = await startInRepository(api, {
    workspaceId: "ws",
    prompt: "p",
    title: undefined,
    repoFlag,
    candidates,
    idempotencyKey: "key-1",
    notify: (n) => notices.push(n),
  }).catch((error: Error) => error);
  return {
    outcome,
    calls,
    notices: notices.map((n) =>
      "repo" in n ? `${n.type} ${n.repo}` : `${n.type} ${"why" in n ? n.why : ""}`,
    ),
  };
}

describe("startInRepository", () => {
  it.each([
    [
      "the first connected candidate",
      undefined,
      [{ remote: "origin", repo: "acme/api" }],
      [["acme/api"]],
      ["repository acme/api"],
    ],
    [
      "a not-connected candidate is said, then the next tried",
      undefined,
      [
        { remote: "origin", repo: "acme/old" },
        { remote: "upstream", repo: "acme/web" },
      ],
      [["acme/old"], ["acme/web"]],
      ["not_connected acme/old", "repository acme/web"],
    ],
    [
      "none connected: without a repository",
      undefined,
      [{ remote: "origin", repo: "acme/old" }],
      [["acme/old"], [undefined]],
      ["not_connected acme/old", "agent_picks none_connected"],
    ],
    [
      "outside a checkout: without a repository",
      undefined,
      undefined,
      [[undefined]],
      ["agent_picks outside_checkout"],
    ],
    [
      "-r is used as given, candidates ignored",
      "acme/web",
      [{ remote: "origin", repo: "acme/api" }],
      [["acme/web"]],
      ["repository acme/web"],
    ],
  ])("%s", async (_rule, repoFlag, candidates, tried, said) => {
    const { calls, notices } = await start(repoFlag, candidates);
    expect(calls.map((c) => [c.repo])).toEqual(tried);
    expect(notices).toEqual(said);
    // "every mutating request carries an idempotency key": the invocation's one key, on every try.
    expect(new Set(calls.map((c) => c.key))).toEqual(new Set(["key-1"]));
  });

  it("-r of a repository that is not connected fails; no other is tried", async () => {
    const { outcome, calls } = await start("acme/old", [{ remote: "origin", repo: "acme/api" }]);
    expect(outcome).toBeInstanceOf(ServiceError);
    expect(calls.map((c) => c.repo)).toEqual(["acme/old"]);
  });
});
