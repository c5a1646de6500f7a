// Reference rule 7: how login obtains the token, and which workspace becomes the default.
import { describe, expect, it } from "vitest";
import {
  chooseDefaultWorkspace,
  chooseLoginMode,
  parseWorkspaceAnswer,
} from "../../../src/client/login-rules.js";

const WS = [
  { id: "ws_a", name: "A", role: "owner" },
  { id: "ws_b", name: "B", role: "member" },
];

describe("how login obtains the token", () => {
  it.each([
    [
      "--token at a terminal: typed without echo",
      { token: true, browser: true, stdinIsTerminal: true },
      "token-typed",
    ],
    ["--token with a pipe: the pipe", { token: true, browser: true, stdinIsTerminal: false }, "token-piped"],
    [
      "piped input is read as a token",
      { token: false, browser: true, stdinIsTerminal: false },
      "token-piped",
    ],
    [
      "...unless --no-browser is also given",
      { token: false, browser: false, stdinIsTerminal: false },
      "browser",
    ],
    [
      "a terminal and no flag: browser sign-in",
      { token: false, browser: true, stdinIsTerminal: true },
      "browser",
    ],
    [
      "--no-browser at a terminal: browser sign-in, URL printed",
      { token: false, browser: false, stdinIsTerminal: true },
      "browser",
    ],
  ])("%s", (_what, input, mode) => {
    expect(chooseLoginMode(input)).toBe(mode);
  });
});

describe("the default workspace", () => {
  it.each([
    [
      "-w one of yours",
      { flag: "ws_b", workspaces: WS, canAsk: false },
      { kind: "chosen", workspace: WS[1] },
    ],
    [
      "-w not yours is refused",
      { flag: "ws_x", workspaces: WS, canAsk: true },
      { kind: "not-yours", id: "ws_x" },
    ],
    [
      "one workspace: it is the default",
      { flag: undefined, workspaces: [WS[0]!], canAsk: false },
      { kind: "chosen", workspace: WS[0] },
    ],
    [
      "several, piped, no -w: no default",
      { flag: undefined, workspaces: WS, canAsk: false },
      { kind: "none-several" },
    ],
    ["several at a terminal: ask", { flag: undefined, workspaces: WS, canAsk: true }, { kind: "ask" }],
    ["none at all", { flag: undefined, workspaces: [], canAsk: true }, { kind: "none-empty" }],
  ])("%s", (_what, input, choice) => {
    expect(chooseDefaultWorkspace(input)).toEqual(choice);
  });

  it.each([
    ["1", "ws_a"],
    [" 2 ", "ws_b"],
    ["ws_b", "ws_b"],
    ["3", undefined],
    ["0", undefined],
    ["", undefined],
    ["b", undefined],
  ])("answer %j picks %s", (answer, id) => {
    expect(parseWorkspaceAnswer(answer, WS)?.id).toBe(id);
  });
});
