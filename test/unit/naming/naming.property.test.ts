// Property tests over random sequences of activations and disconnections, with repository names chosen to
// normalise alike and variable names chosen to collide.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SHELL_NAME_PATTERN } from "../../../src/envfile/overlay.js";
import { assignVariableNames, type NamingLedger, reserveRepositoryNames } from "../../../src/naming/index.js";

const repositories = [
  { repositoryId: "r1", repository: "acme/api" },
  { repositoryId: "r2", repository: "acme/my-api" },
  { repositoryId: "r3", repository: "other/my_api" },
  { repositoryId: "r4", repository: "other/My.Api" },
  { repositoryId: "r5", repository: "x/..." },
  { repositoryId: "r6", repository: "x/web" },
];
const variables = ["A", "B", "TOKEN", "REPO_API__A", "REPO_MY_API__TOKEN", "_x", "web"];

const step = fc.oneof(
  fc.record({
    kind: fc.constant("activate" as const),
    repo: fc.constantFrom(...repositories),
    variables: fc.array(fc.constantFrom(...variables), { maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant("disconnect" as const), repo: fc.constantFrom(...repositories) }),
);

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function run(steps: readonly Step[]) {
  let ledger: NamingLedger = { entries: [] };
  const history: Array<Map<string, string>> = [];
  for (const s of steps) {
    if (s.kind === "activate") {
      ledger = assignVariableNames(ledger, { ...s.repo, variables: s.variables }).ledger;
    } else {
      ledger = reserveRepositoryNames(ledger, s.repo.repositoryId);
    }
    history.push(new Map(ledger.entries.map((e) => [`${e.repositoryId} ${e.variable}`, e.assigned])));
  }
  return { ledger, history };
}

describe("naming properties", () => {
  it("no two live variables ever share an assigned name, and reserved names are never reused", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const { ledger } = run(steps);
        const assigned = ledger.entries.map((e) => e.assigned);
        // Stronger than "live": no entry of any status shares a name, so a reserved name never returns.
        expect(new Set(assigned).size).toBe(assigned.length);
        for (const name of assigned) expect(name).toMatch(SHELL_NAME_PATTERN);
      }),
      { numRuns: 500 },
    );
  });

  it("re-running the same steps gives identical assignments", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        expect(run(steps).ledger).toEqual(run(steps).ledger);
      }),
      { numRuns: 300 },
    );
  });

  it("assignments are sticky: once given, a repository variable's name never changes", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const { history } = run(steps);
        const first = new Map<string, string>();
        for (const snapshot of history) {
          for (const [key, name] of snapshot) {
            if (!first.has(key)) first.set(key, name);
            expect(name).toBe(first.get(key));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("re-activating any repository with the same variables changes nothing but reserved -> live", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.constantFrom(...repositories), (steps, repo) => {
        const { ledger } = run(steps);
        const own = ledger.entries.filter((e) => e.repositoryId === repo.repositoryId);
        const again = assignVariableNames(ledger, { ...repo, variables: own.map((e) => e.variable) });
        expect(again.ledger.entries.map((e) => e.assigned)).toEqual(ledger.entries.map((e) => e.assigned));
        expect(again.assignments.map((a) => a.assigned)).toEqual(own.map((e) => e.assigned));
      }),
      { numRuns: 300 },
    );
  });
});
