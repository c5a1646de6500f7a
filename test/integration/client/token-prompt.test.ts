// `baton login --token` in a real terminal (tmux): what is typed is never echoed, and a token piped into login is
// read as the token. The terminal is tmux's pseudo-terminal, so the raw mode and echo are the real ones.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATON_BIN } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
import { TOKENS } from "../api/harness.js";
import { type ClientRig, startClientRig } from "./rig.js";

let rig: ClientRig;
const sessions: string[] = [];

beforeAll(async () => {
  rig = await startClientRig();
}, 90_000);
afterAll(async () => {
  for (const session of sessions) {
    try {
      execFileSync("tmux", ["kill-session", "-t", session], { stdio: "ignore" });
    } catch {
      // already ended
    }
  }
  await rig?.serve.stop();
});

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const screen = (session: string) => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", session);
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** Runs `command` in a new tmux session; the shell stays so the screen can be read after it ends. */
function openTerminal(home: string, command: string): string {
  const session = `baton-login-${process.pid}-${sessions.length}`;
  sessions.push(session);
  const env = [
    `BATON_API_URL=${quote(rig.serve.url)}`,
    `XDG_CONFIG_HOME=${quote(`${home}/config`)}`,
    `HOME=${quote(home)}`,
    "BATON_LOG_LEVEL=",
  ].join(" ");
  const script = `export ${env}; ${command}; echo "EXIT=$?"; sleep 60`;
  tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", "bash", "--norc", "-c", script);
  return session;
}

const baton = `${quote(process.execPath)} ${quote(BATON_BIN)}`;

describe("the token prompt in a real terminal", () => {
  it("nothing typed is echoed; Enter signs in with it", async () => {
    const home = await rig.newHome();
    const session = openTerminal(home, `${baton} login --token -w ws_acme`);
    const prompt = await pollUntil(
      () => screen(session),
      (s) => s.includes("Personal access token"),
      {
        timeoutMs: 20_000,
      },
    );
    expect(prompt).toContain("Personal access token (typing is hidden):");
    tmux("send-keys", "-t", session, "-l", TOKENS.dev);
    // Give the terminal time to echo, if it were going to: poll for the screen to hold a part of the token.
    const typed = await pollUntil(
      () => screen(session),
      (s) => s.includes("btn_"),
      { timeoutMs: 1_500 },
    );
    expect(typed).not.toContain("btn_");
    expect(typed).not.toContain(TOKENS.dev.slice(-8));
    tmux("send-keys", "-t", session, "Enter");
    const done = await pollUntil(
      () => screen(session),
      (s) => s.includes("EXIT="),
      { timeoutMs: 20_000 },
    );
    expect(done).toContain("EXIT=0");
    expect(done).toContain("Signed in to");
    expect(done).not.toContain(TOKENS.dev);
    expect(JSON.parse(readFileSync(rig.configFile(home), "utf8"))).toMatchObject({
      token: TOKENS.dev,
      kind: "personal",
      workspace: "ws_acme",
    });
  }, 60_000);

  it("several workspaces and no -w at a terminal: asks which is the default (numbered choice)", async () => {
    const home = await rig.newHome();
    const session = openTerminal(home, `${baton} login --token`);
    await pollUntil(
      () => screen(session),
      (s) => s.includes("Personal access token"),
      { timeoutMs: 20_000 },
    );
    tmux("send-keys", "-t", session, "-l", TOKENS.owner);
    tmux("send-keys", "-t", session, "Enter");
    const asked = await pollUntil(
      () => screen(session),
      (s) => s.includes("Default workspace [1-2]"),
      {
        timeoutMs: 20_000,
      },
    );
    expect(asked).toContain("1. Acme (ws_acme)");
    expect(asked).toContain("2. Beta (ws_beta)");
    tmux("send-keys", "-t", session, "-l", "7");
    tmux("send-keys", "-t", session, "Enter");
    await pollUntil(
      () => screen(session),
      (s) => s.includes("Answer with a number from 1 to 2"),
      {
        timeoutMs: 20_000,
      },
    );
    tmux("send-keys", "-t", session, "-l", "2");
    tmux("send-keys", "-t", session, "Enter");
    const done = await pollUntil(
      () => screen(session),
      (s) => s.includes("EXIT="),
      { timeoutMs: 20_000 },
    );
    expect(done).toContain("EXIT=0");
    expect(done).toContain("Default workspace: ws_beta (Beta).");
    expect(JSON.parse(readFileSync(rig.configFile(home), "utf8")).workspace).toBe("ws_beta");
  }, 60_000);

  it("Ctrl-C at the prompt cancels: exit 1, nothing saved", async () => {
    const home = await rig.newHome();
    const session = openTerminal(home, `${baton} login --token`);
    await pollUntil(
      () => screen(session),
      (s) => s.includes("Personal access token"),
      { timeoutMs: 20_000 },
    );
    tmux("send-keys", "-t", session, "-l", "btn_half");
    tmux("send-keys", "-t", session, "C-c");
    const done = await pollUntil(
      () => screen(session),
      (s) => s.includes("EXIT="),
      { timeoutMs: 20_000 },
    );
    expect(done).toContain("EXIT=1");
    expect(done).toContain("login cancelled; nothing was saved");
    expect(existsSync(rig.configFile(home))).toBe(false);
  }, 60_000);

  it("a token piped into login in a terminal is read as the token (no prompt)", async () => {
    const home = await rig.newHome();
    const session = openTerminal(home, `printf '%s' ${quote(TOKENS.stranger)} | ${baton} login`);
    const done = await pollUntil(
      () => screen(session),
      (s) => s.includes("EXIT="),
      { timeoutMs: 20_000 },
    );
    expect(done).toContain("EXIT=0");
    expect(done).not.toContain("Personal access token");
    expect(done).not.toContain(TOKENS.stranger);
    expect(JSON.parse(readFileSync(rig.configFile(home), "utf8")).token).toBe(TOKENS.stranger);
  }, 60_000);
});
