// The sanitiser's rules: known values in every encoding, overlapping hits merged, short values ignored,
// control characters removed, counts by kind and never a value.
import { describe, expect, it } from "vitest";
import { createSanitiser, looksLikeSecret, MIN_SECRET_LENGTH } from "../../../src/evidence/index.js";

const SECRET = "s3cr3t-Canary/Value+42&x=y";
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("createSanitiser with known secrets", () => {
  const sanitiser = createSanitiser({ secrets: [{ name: "API_TOKEN", value: SECRET }] });

  it("replaces the plain value with [REDACTED:<name>] and counts it under the name", () => {
    const result = sanitiser.sanitise(`token is ${SECRET} ok`);
    expect(result.text).toBe("token is [REDACTED:API_TOKEN] ok");
    expect(result.redactions).toEqual({ API_TOKEN: 1 });
  });

  it.each([
    ["URL-encoded", encodeURIComponent(SECRET)],
    ["form-encoded", encodeURIComponent(`${SECRET} x`).replace(/%20/g, "+")],
    ["JSON-escaped", JSON.stringify({ v: `${SECRET}"\n` }).slice(6, -2)],
  ])("replaces the %s value", (_label, encoded) => {
    const result = sanitiser.sanitise(`before ${encoded} after`);
    expect(result.text).toContain("[REDACTED:API_TOKEN]");
    expect(result.text).not.toContain("Canary");
  });

  for (const prefix of ["", "a", "ab"]) {
    for (const suffix of ["", "\n", "trailing data"]) {
      it(`replaces base64 at alignment ${prefix.length} with suffix ${JSON.stringify(suffix)}`, () => {
        for (const encoded of [
          b64(prefix + SECRET + suffix),
          b64(prefix + SECRET + suffix)
            .replace(/\+/g, "-")
            .replace(/\//g, "_"),
        ]) {
          const result = sanitiser.sanitise(`data: ${encoded} end`);
          // At most two characters that carry bits of the prefix stay before the marker; nothing of the
          // secret stays after it except characters that encode only the suffix.
          const suffixChars = suffix.length === 0 ? 0 : Math.ceil((suffix.length * 8) / 6) + 2;
          const after = new RegExp(
            `^data: [A-Za-z0-9+/_-]{0,2}\\[REDACTED:API_TOKEN\\][A-Za-z0-9+/_=-]{0,${suffixChars}} end$`,
          );
          expect(result.text).toMatch(after);
        }
      });
    }
  }

  it("merges overlapping secrets instead of leaking the part one replacement missed", () => {
    const overlapping = createSanitiser({
      secrets: [
        { name: "A", value: "abc12345" },
        { name: "B", value: "2345WXYZ" },
      ],
    });
    const result = overlapping.sanitise("x abc12345WXYZ y");
    expect(result.text).toBe("x [REDACTED:A] y");
    expect(result.text).not.toContain("WXYZ");
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters and names them`, () => {
    const short = createSanitiser({ secrets: [{ name: "PIN", value: "1234567" }] });
    expect(short.sanitise("pin 1234567").text).toBe("pin 1234567");
    expect(short.ignoredShortSecrets).toEqual(["PIN"]);
  });
});

describe("patterns and control characters", () => {
  const sanitiser = createSanitiser();

  it("removes ANSI escapes and control characters but keeps newline and tab, counting each kind", () => {
    const result = sanitiser.sanitise("\x1b[31mred\x1b[0m\tok\n\x07bell\x1b]0;title\x07");
    expect(result.text).toBe("red\tok\nbell");
    expect(result.redactions).toEqual({ ansi_escape: 3, control_character: 1 });
  });

  it("finds every control character at every position the sampling can put it", () => {
    for (const control of ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\r", "\x1f", "\x7f", "\x85", "\x9f"]) {
      for (let at = 0; at < 9; at++) {
        const text = `${"abcdefghijkl".slice(0, at)}${control}tail text\tand\nmore`;
        const result = sanitiser.sanitise(text);
        expect(result.text).toBe(`${"abcdefghijkl".slice(0, at)}tail text\tand\nmore`);
        expect(result.redactions).toEqual({ control_character: 1 });
      }
    }
  });

  it("keeps non-ASCII text as it is", () => {
    const text = "Näytä asiakirjamallikansio — 日本語 ✓ \u0100\u0113 emoji 😀";
    expect(sanitiser.sanitise(text)).toEqual({ text, redactions: {} });
  });

  it("finds a token broken up by colour codes", () => {
    const token = "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";
    const result = sanitiser.sanitise(`x ${token.slice(0, 10)}\x1b[1m${token.slice(10)} y`);
    expect(result.text).toBe("x [REDACTED:github_token] y");
  });

  it("names a token by its format rather than by the generic assignment around it", () => {
    const token = "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";
    expect(sanitiser.sanitise(`export GITHUB_TOKEN=${token}`).text).toBe(
      "export GITHUB_TOKEN=[REDACTED:github_token]",
    );
  });

  it("leaves ordinary log lines about tokens and passwords alone", () => {
    for (const line of [
      "token: expired after 3600s",
      "password: ********",
      "Secret: MySecretName",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JS template
      "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
      "see https://github.com/acme/api/pull/12",
      "ssh://git@github.com:acme/api.git",
    ]) {
      expect(sanitiser.sanitise(line).text).toBe(line);
    }
  });

  it("looksLikeSecret tells secret-shaped text from ordinary text", () => {
    expect(looksLikeSecret("use AKIAIOSFODNN7EXAMPLE here")).toBe(true);
    expect(looksLikeSecret("postgres://app:hunter2hunter2@db:5432/app")).toBe(true);
    expect(looksLikeSecret("the build needs access to the staging database")).toBe(false);
  });
});

describe("sanitiser streams", () => {
  const token = "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";
  const sanitiser = createSanitiser({ secrets: [{ name: "CANARY", value: SECRET }] });

  const runStream = (chunks: string[]) => {
    const stream = sanitiser.stream();
    const out = chunks.map((chunk) => stream.push(chunk)).join("") + stream.flush();
    return { out, redactions: stream.redactions };
  };

  it("redacts a value split across two writes at every split point", () => {
    const text = `start ${SECRET} middle ${token} end\n`;
    for (let split = 1; split < text.length; split++) {
      const { out, redactions } = runStream([text.slice(0, split), text.slice(split)]);
      expect(out).toBe("start [REDACTED:CANARY] middle [REDACTED:github_token] end\n");
      expect(redactions).toEqual({ CANARY: 1, github_token: 1 });
    }
  });

  it("re-scans after a partial match breaks off (xaa then ab)", () => {
    const repeated = createSanitiser({ secrets: [{ name: "S", value: "aaaaaaab" }] });
    const stream = repeated.stream();
    const out = stream.push("xaaaaaaa") + stream.push("aaab") + stream.flush();
    expect(out).toBe("xaaa[REDACTED:S]");
  });

  it("holds a private key until its end marker arrives, one line at a time", () => {
    const key =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIBAAKCAQEAn6/O8li+SX4m98LLYt\nyxR5MsXFu9PRsrYQA7/4UTPHiC4y2sAVCBg4C2y\n-----END RSA PRIVATE KEY-----\n";
    const lines = `before\n${key}after\n`.split(/(?<=\n)/);
    const { out } = runStream(lines);
    expect(out).toBe("before\n[REDACTED:private_key]\nafter\n");
  });

  it("streams large output in bounded pieces", () => {
    const stream = sanitiser.stream();
    let emitted = 0;
    for (let i = 0; i < 200; i++) emitted += stream.push(`line ${i} ${"x".repeat(1000)}\n`).length;
    expect(emitted).toBeGreaterThan(190_000);
    expect(emitted + stream.flush().length).toBe(
      200 * 1000 + [...Array(200).keys()].reduce((n, i) => n + `line ${i} \n`.length, 0),
    );
  });
});
