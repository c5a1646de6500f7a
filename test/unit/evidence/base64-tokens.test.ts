// Tokens nobody told the sanitiser about, printed base64-encoded (standard or URL-safe, on one line or wrapped as
// base64 tools wrap): the run is decoded, scanned, and redacted whole when what it decodes to holds a token.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSanitiser, isUnlistedSecret, knownSecretsFrom } from "../../../src/evidence/index.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const body = (alphabet: string, length: number) =>
  fc
    .array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length })
    .map((a) => a.join(""))
    .filter((s) => new Set(s).size >= Math.min(12, length / 2));

/** Unknown tokens of each format; a JWT is found by the Authorization header around it. */
const TOKENS = {
  github: body(ALNUM, 36).map((b) => `ghp_${b}`),
  githubPat: body(`${ALNUM}_`, 82).map((b) => `github_pat_${b}`),
  gitlab: body(ALNUM, 20).map((b) => `glpat-${b}`),
  aws: body("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 16).map((b) => `AKIA${b}`),
  slack: body(ALNUM, 24).map((b) => `xoxb-123456789012-${b}`),
  stripe: body(ALNUM, 24).map((b) => `sk_live_${b}`),
  anthropic: body(`${ALNUM}_-`, 93).map((b) => `sk-ant-api03-${b}AA`),
  openai: fc.tuple(body(ALNUM, 20), body(ALNUM, 20)).map(([a, b]) => `sk-${a}T3BlbkFJ${b}`),
  google: body(`${ALNUM}_-`, 35).map((b) => `AIza${b}`),
  npm: body(ALNUM, 36).map((b) => `npm_${b}`),
  baton: body(ALNUM, 32).map((b) => `btn_${b}`),
  assignment: body(ALNUM, 28).map((b) => `DEPLOY_TOKEN=${b}`),
  bearer: body(ALNUM, 40).map((b) => `Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJ${b}.${b.slice(0, 20)}`),
} as const;

/** What a shell prints: `printf %s "$X" | base64`, `echo "...$X" | base64` (wrapped at 76), `base64 -w0`. */
function encode(plain: string, urlSafe: boolean, wrap: boolean): string {
  const encoded = Buffer.from(plain).toString(urlSafe ? "base64url" : "base64");
  return wrap ? encoded.replace(/(.{76})(?=.)/g, "$1\n") : encoded;
}

function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let at = 0;
  for (const point of points) {
    pieces.push(text.slice(at, point));
    at = point;
  }
  return [...pieces, text.slice(at)];
}

describe("base64-encoded tokens", () => {
  const sanitiser = createSanitiser();
  const canary = `ghp_${randomBytes(27).toString("base64url").replace(/[-_]/g, "x").slice(0, 36)}`;

  it.each([
    ["the token alone", canary],
    ["with a trailing newline (echo | base64)", `${canary}\n`],
    ["after a shell assignment", `export GITHUB_TOKEN=${canary}\n`],
    ["one byte into a group", ` ${canary}`],
    ["two bytes into a group", `t=${canary}`],
  ])("%s: redacted whole, standard and URL-safe, counted by the token's kind", (_name, plain) => {
    for (const urlSafe of [false, true]) {
      const encoded = encode(plain, urlSafe, false);
      const result = sanitiser.sanitise(`config: ${encoded} (done)`);
      expect(result.text).toBe("config: [REDACTED:github_token] (done)");
      expect(result.redactions).toEqual({ github_token: 1 });
    }
  });

  it("a wrapped encoding with the token across a line break is redacted as one block; lines around it stay", () => {
    const plain = `${"# generated config\n".repeat(3)}registry=npm.acme.test\n_authToken=${canary}\n`;
    const encoded = encode(plain, false, true);
    expect(encoded.split("\n").length).toBeGreaterThan(2);
    const text = `writing .npmrc\n${encoded}\nnext step\n`;
    const result = sanitiser.sanitise(text);
    expect(result.text).toBe("writing .npmrc\n[REDACTED:github_token]\nnext step\n");
    for (const cut of [1, 40, 77, 78, 100, 155]) {
      const stream = sanitiser.stream();
      const streamed =
        stream.push(text.slice(0, 15 + cut)) + stream.push(text.slice(15 + cut)) + stream.flush();
      expect(streamed).toBe(result.text);
    }
  });

  it("ordinary base64 (random bytes, digests, words) is left alone", () => {
    const texts = [
      randomBytes(3000).toString("base64"),
      encode(randomBytes(3000).toString("latin1"), false, true),
      "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
      Buffer.from("just some ordinary words about tokens and passwords in a log line\n").toString("base64"),
    ];
    for (const text of texts) expect(sanitiser.sanitise(text).text).toBe(text);
  });

  for (const [format, generator] of Object.entries(TOKENS)) {
    it(`unknown ${format} tokens, base64-encoded any way, never survive the sanitiser or its stream (property)`, () => {
      fc.assert(
        fc.property(
          generator,
          fc.constantFrom("", " ", "=", "key: ", "export T="),
          fc.constantFrom("", "\n"),
          fc.boolean(),
          fc.boolean(),
          fc.array(fc.nat(), { maxLength: 3 }),
          (token, prefix, suffix, urlSafe, wrap, cuts) => {
            const plain = prefix + token + suffix;
            // Shrinking can make a placeholder (ghp_AAAA…): what is no token in plain text is none encoded.
            fc.pre(sanitiser.sanitise(plain).text !== plain);
            const encoded = encode(plain, urlSafe, wrap);
            const text = `step 3/7 wrote\n${encoded}\nok\n`;
            const whole = sanitiser.sanitise(text);
            expect(whole.text).toMatch(/^step 3\/7 wrote\n\[REDACTED:[a-z_]+\]\nok\n$/);
            const stream = sanitiser.stream();
            const streamed =
              splitAt(text, cuts)
                .map((piece) => stream.push(piece))
                .join("") + stream.flush();
            expect(streamed).toBe(whole.text);
          },
        ),
        { numRuns: 40 },
      );
    });
  }
});

describe("secret-named variables nobody listed", () => {
  it.each<[string, string, boolean]>([
    ["DEPLOY_TOKEN", "4f9a8b7c6d5e4f3a2b1c0d9e", true],
    ["AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true],
    ["DB_PASSWORD", "Tr0ub4dor&3xyz", true],
    ["NPM_CONFIG__AUTH", "dXNlcjpwYXNzd29yZDEyMw==", true],
    ["DEPLOY_TOKEN_URL", "https://tokens.acme.test/issue", false],
    ["SSH_AUTH_SOCK", "/tmp/ssh-XXXXab12/agent.4242", false],
    ["TOKEN_NAME", "deploy-token-2026", false],
    ["GITHUB_TOKEN", "changeme", false],
    ["API_KEY", "$API_KEY_FROM_VAULT", false],
    ["SECRET_MESSAGE", "hello there general kenobi", false],
    ["HOME", "4f9a8b7c6d5e4f3a2b1c0d9e", false],
  ])("%s=%s is a known secret: %s", (name, value, expected) => {
    expect(isUnlistedSecret(name, value)).toBe(expected);
  });

  it("a DEPLOY_TOKEN the agent's shell exported, absent from environment.sh, is redacted by name", () => {
    const value = `dpl_${randomBytes(16).toString("hex")}`;
    const env = { HOME: "/home/agent", PATH: "/usr/bin", DEPLOY_TOKEN: value };
    const secrets = knownSecretsFrom("# baton environment\n", env);
    expect(secrets).toEqual([{ name: "DEPLOY_TOKEN", value }]);
    const sanitiser = createSanitiser({ secrets });
    const printed = `deploying with ${value} and ${Buffer.from(value).toString("base64")}`;
    const result = sanitiser.sanitise(printed);
    expect(result.text).not.toContain(value);
    expect(result.text).not.toContain(Buffer.from(value).toString("base64").slice(0, -4));
    expect(result.redactions).toEqual({ DEPLOY_TOKEN: 2 });
  });
});
