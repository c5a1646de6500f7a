// Property tests: freshly generated secrets of each token format, in each encoding, at random positions and
// random chunk splits, never survive the sanitiser or its stream.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSanitiser } from "../../../src/evidence/index.js";
import { base64Core } from "../../../src/evidence/secret-forms.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGIT = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const chars = (alphabet: string, length: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length }).map((a) => a.join(""));
// Random bodies can come out low-entropy only with negligible probability; the filter keeps the property exact.
const mixed = (alphabet: string, length: number) =>
  chars(alphabet, length).filter((s) => new Set(s).size >= Math.min(12, length / 2));

/** Generators of each token format the sanitiser recognises without knowing the value. */
const TOKEN_FORMATS = {
  github: mixed(ALNUM, 36).map((b) => `ghp_${b}`),
  githubPat: mixed(`${ALNUM}_`, 82).map((b) => `github_pat_${b}`),
  gitlab: mixed(ALNUM, 20).map((b) => `glpat-${b}`),
  aws: chars(UPPER_DIGIT, 16).map((b) => `AKIA${b}`),
  slack: fc.tuple(chars("0123456789", 12), mixed(ALNUM, 24)).map(([a, b]) => `xoxb-${a}-${b}`),
  stripe: mixed(ALNUM, 24).map((b) => `sk_live_${b}`),
  anthropic: mixed(`${ALNUM}_-`, 93).map((b) => `sk-ant-api03-${b}AA`),
  openai: fc.tuple(mixed(ALNUM, 20), mixed(ALNUM, 20)).map(([a, b]) => `sk-${a}T3BlbkFJ${b}`),
  google: mixed(`${ALNUM}_-`, 35).map((b) => `AIza${b}`),
  npm: mixed(ALNUM, 36).map((b) => `npm_${b}`),
  baton: mixed(ALNUM, 32).map((b) => `btn_${b}`),
  jwt: fc
    .tuple(mixed(ALNUM, 30), mixed(`${ALNUM}_-`, 40))
    .map(([claims, signature]) => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${claims}.${signature}`),
} as const;

const filler = fc
  .array(
    fc.constantFrom("building", "ok", "step", "done", "\n", "info:", "[3/7]", "npm", "warn", "at", "12ms"),
    {
      maxLength: 30,
    },
  )
  .map((words) => words.join(" "));

function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let at = 0;
  for (const point of points) {
    pieces.push(text.slice(at, point));
    at = point;
  }
  pieces.push(text.slice(at));
  return pieces;
}

const ENCODINGS = ["plain", "base64", "base64-newline", "url", "json"] as const;
type Encoding = (typeof ENCODINGS)[number];

function encode(value: string, encoding: Encoding, prefix: string): { text: string; core: string } {
  const bytes = new TextEncoder().encode(value);
  switch (encoding) {
    case "plain":
      return { text: value, core: value };
    case "url":
      return { text: encodeURIComponent(value), core: encodeURIComponent(value) };
    case "json":
      return { text: JSON.stringify(value).slice(1, -1), core: JSON.stringify(value).slice(1, -1) };
    case "base64":
    case "base64-newline": {
      const tail = encoding === "base64-newline" ? "\n" : "";
      const text = Buffer.from(prefix + value + tail, "utf8").toString("base64");
      return { text, core: base64Core(bytes, (Buffer.byteLength(prefix) % 3) as 0 | 1 | 2) };
    }
  }
}

describe("sanitiser properties", () => {
  it("known secrets of every token format, in every encoding, at any position and split, never survive", () => {
    const anyToken = fc.oneof(...Object.values(TOKEN_FORMATS), mixed(`${ALNUM}/+&=%" `, 24));
    fc.assert(
      fc.property(
        anyToken,
        fc.constantFrom(...ENCODINGS),
        fc.constantFrom("", "a", "ab"),
        filler,
        filler,
        fc.array(fc.nat(), { maxLength: 4 }),
        (secret, encoding, prefix, before, after, cuts) => {
          const sanitiser = createSanitiser({ secrets: [{ name: "CANARY", value: secret }] });
          const { text: encoded, core } = encode(secret, encoding, prefix);
          const text = `${before} ${encoded} ${after}`;
          const whole = sanitiser.sanitise(text);
          expect(whole.text).not.toContain(core);
          expect(whole.redactions.CANARY ?? 0).toBeGreaterThanOrEqual(1);
          const stream = sanitiser.stream();
          const streamed =
            splitAt(text, cuts)
              .map((piece) => stream.push(piece))
              .join("") + stream.flush();
          expect(streamed).not.toContain(core);
          expect(streamed).toBe(whole.text);
        },
      ),
      { numRuns: 300 },
    );
  });

  for (const [format, generator] of Object.entries(TOKEN_FORMATS)) {
    it(`unknown ${format} tokens are found by pattern at any position and split`, () => {
      const sanitiser = createSanitiser();
      fc.assert(
        fc.property(
          generator,
          filler,
          filler,
          fc.array(fc.nat(), { maxLength: 3 }),
          (token, before, after, cuts) => {
            const text = `${before} ${token} ${after}`;
            expect(sanitiser.sanitise(text).text).not.toContain(token.slice(-16));
            const stream = sanitiser.stream();
            const streamed =
              splitAt(text, cuts)
                .map((piece) => stream.push(piece))
                .join("") + stream.flush();
            expect(streamed).not.toContain(token.slice(-16));
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it("URL passwords are found at any split", () => {
    const sanitiser = createSanitiser();
    fc.assert(
      fc.property(
        mixed(ALNUM, 16),
        filler,
        fc.array(fc.nat(), { maxLength: 3 }),
        (password, before, cuts) => {
          const text = `${before} fetching https://deploy:${password}@git.example.com/repo.git\n`;
          const stream = sanitiser.stream();
          const streamed =
            splitAt(text, cuts)
              .map((piece) => stream.push(piece))
              .join("") + stream.flush();
          expect(streamed).not.toContain(password);
          expect(streamed).toContain("https://deploy:[REDACTED:url_password]@git.example.com/repo.git");
        },
      ),
      { numRuns: 100 },
    );
  });
});
