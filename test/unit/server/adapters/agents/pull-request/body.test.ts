// The pull request Baton composes for `open_pull_request` (src/server/adapters/agents/pull-request/body.ts and the
// flags of disclose.ts): the body is the disclosure, then the agent's notes; "If a required check cannot run, the
// pull request stays a draft"; "Raw output and secrets are never included" (reference section 2).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OpenPullRequestInputSchema, type ReportedCheck } from "../../../../../../src/agent-tools/index.js";
import { parseCheckFlag } from "../../../../../../src/disclosure/index.js";
import { PULL_REQUEST_BODY_CHARS } from "../../../../../../src/server/adapters/agents/port.js";
import { notActivated } from "../../../../../../src/server/adapters/agents/pull-request/disclose.js";
import {
  AGENT_NOTES_HEADING,
  checkFlags,
  composePullRequest,
} from "../../../../../../src/server/adapters/agents/pull-request/index.js";

const DISCLOSURE =
  "## Environment disclosure: acme/api\n\n**Ready for review:** every required check ran and passed.\n";
const same = (text: string) => text;

describe("composePullRequest", () => {
  it.each([
    ["the agent asked for nothing", false, false, false],
    ["the agent asked for a draft", true, false, true],
    ["the disclosure asks for a draft (a required check did not run)", false, true, true],
    ["both", true, true, true],
  ])("draft when the agent asked or the disclosure says so: %s", (_, asked, disclosed, draft) => {
    const composed = composePullRequest({
      disclosure: { markdown: DISCLOSURE, draft: disclosed },
      request: { draft: asked },
      clean: same,
    });
    expect(composed).toEqual({ body: DISCLOSURE, draft });
  });

  it("the agent's notes follow the disclosure under their own heading; blank notes add nothing", () => {
    const composed = composePullRequest({
      disclosure: { markdown: DISCLOSURE, draft: false },
      request: { body: "  Changed the parser.\n", draft: false },
      clean: same,
    });
    expect(composed.body).toBe(`${DISCLOSURE}\n${AGENT_NOTES_HEADING}\n\nChanged the parser.\n`);
    expect(
      composePullRequest({
        disclosure: { markdown: DISCLOSURE, draft: false },
        request: { body: " \n ", draft: false },
        clean: same,
      }).body,
    ).toBe(DISCLOSURE);
  });

  it("both the disclosure and the notes pass the sanitiser", () => {
    const clean = (text: string) => text.replaceAll("s3cr3t", "[REDACTED:X]");
    const composed = composePullRequest({
      disclosure: { markdown: `${DISCLOSURE}note s3cr3t\n`, draft: false },
      request: { body: "token s3cr3t", draft: false },
      clean,
    });
    expect(composed.body).not.toContain("s3cr3t");
    expect(composed.body.match(/\[REDACTED:X\]/g)).toHaveLength(2);
  });

  it("the notes give way to the code host's limit, never the disclosure", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: PULL_REQUEST_BODY_CHARS + 5_000 }),
        fc.nat({ max: 3_000 }),
        (notes, extra) => {
          const markdown = `${DISCLOSURE}${"d".repeat(extra)}\n`;
          const { body } = composePullRequest({
            disclosure: { markdown, draft: false },
            request: { body: "n".repeat(notes + 1), draft: false },
            clean: same,
          });
          expect(body.length).toBeLessThanOrEqual(PULL_REQUEST_BODY_CHARS);
          expect(body.startsWith(markdown.trimEnd())).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("checkFlags", () => {
  const check = fc.record({
    name: fc
      .stringMatching(/^[^=\s][^=\r\n]{0,30}$/)
      .map((s) => s.trim())
      .filter((s) => s !== "" && !s.includes("=")),
    result: fc.constantFrom("passed" as const, "failed" as const, "not_run" as const),
    note: fc.option(
      fc
        .stringMatching(/^[^\r\n]{1,40}$/)
        .map((s) => s.trim())
        .filter((s) => s !== ""),
      { nil: undefined },
    ),
  });

  it("every check the tool accepts reaches `baton disclose --check` and parses back to itself", () => {
    fc.assert(
      fc.property(check, (reported: ReportedCheck) => {
        const parsed = OpenPullRequestInputSchema.parse({ title: "t", checks: [reported] }).checks![0]!;
        const [flag, value] = checkFlags([parsed]);
        expect(flag).toBe("--check");
        expect(parseCheckFlag(value!)).toEqual({
          name: parsed.name,
          result: parsed.result,
          note: parsed.note ?? null,
        });
      }),
    );
  });

  it("the tool refuses a check name with '=' (the flag could not carry it) or a line break", () => {
    for (const name of ["a=b", "npm\ntest"])
      expect(
        OpenPullRequestInputSchema.safeParse({ title: "t", checks: [{ name, result: "passed" }] }).success,
      ).toBe(false);
  });
});

describe("notActivated", () => {
  it("is the renderer's disclosure of a sandbox with no handoff: a draft that says so and lists the reported checks", () => {
    const disclosure = notActivated("acme/api", [{ name: "npm test", result: "passed" }]);
    expect(disclosure.draft).toBe(true);
    expect(disclosure.markdown).toContain("not activated in this sandbox");
    expect(disclosure.markdown).toContain("| `npm test` | passed | – |");
  });
});
