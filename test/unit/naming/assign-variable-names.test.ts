import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/errors.js";
import {
  assignVariableNames,
  type NamingLedger,
  normaliseQualifier,
  type RepositoryVariables,
  reserveRepositoryNames,
  suffixForRepositoryId,
} from "../../../src/naming/index.js";

const empty: NamingLedger = { entries: [] };

function repo(repositoryId: string, repository: string, ...variables: string[]): RepositoryVariables {
  return { repositoryId, repository, variables };
}

/** Applies activations in order and returns the assigned name per `repository variable`. */
function activate(...inputs: RepositoryVariables[]): { ledger: NamingLedger; names: Record<string, string> } {
  let ledger = empty;
  const names: Record<string, string> = {};
  for (const input of inputs) {
    const result = assignVariableNames(ledger, input);
    ledger = result.ledger;
    for (const a of result.assignments) names[`${a.repository} ${a.variable}`] = a.assigned;
  }
  return { ledger, names };
}

describe("normaliseQualifier: upper case, every character outside A-Z and 0-9 becomes _, runs collapsed, trimmed", () => {
  it.each([
    ["acme/api", "API"],
    ["acme/my-api", "MY_API"],
    ["acme/My.Api", "MY_API"],
    ["acme/my--api__v2", "MY_API_V2"],
    ["acme/-.api.-", "API"],
    ["acme/2fa", "2FA"],
    ["acme/caf\u00e9", "CAF"],
    ["acme/...", ""],
    ["api", "API"],
  ])("%s -> %s", (input, expected) => {
    expect(normaliseQualifier(input)).toBe(expected);
  });
});

describe("variable naming rules (reference: Environment activation, Variable naming)", () => {
  it("the first committed repository keeps an unqualified variable name", () => {
    const { names } = activate(repo("r1", "acme/api", "DATABASE_URL", "API_KEY"));
    expect(names).toEqual({ "acme/api DATABASE_URL": "DATABASE_URL", "acme/api API_KEY": "API_KEY" });
  });

  it("a later collision receives a qualified name of the form REPO_<REPO_NAME>__<VARIABLE_NAME>", () => {
    const { names } = activate(
      repo("r1", "acme/api", "DATABASE_URL"),
      repo("r2", "acme/web-app", "DATABASE_URL"),
    );
    expect(names["acme/web-app DATABASE_URL"]).toBe("REPO_WEB_APP__DATABASE_URL");
  });

  it("a later repository's variables that do not collide stay unqualified", () => {
    const { names } = activate(repo("r1", "acme/api", "A"), repo("r2", "acme/web", "A", "B"));
    expect(names["acme/web B"]).toBe("B");
  });

  it("the qualified flag says which assignments are qualified", () => {
    const first = assignVariableNames(empty, repo("r1", "acme/api", "A"));
    const second = assignVariableNames(first.ledger, repo("r2", "acme/web", "A", "B"));
    expect(second.assignments.map((a) => [a.variable, a.qualified])).toEqual([
      ["A", true],
      ["B", false],
    ]);
  });

  it("a stable repository-id suffix resolves collisions between normalised qualifiers", () => {
    const { names } = activate(
      repo("r1", "acme/api", "TOKEN"),
      repo("r2", "acme/my-api", "TOKEN"),
      repo("r3", "other/my_api", "TOKEN"),
    );
    expect(names["acme/my-api TOKEN"]).toBe("REPO_MY_API__TOKEN");
    expect(names["other/my_api TOKEN"]).toBe(`REPO_MY_API_${suffixForRepositoryId("r3")}__TOKEN`);
  });

  it("the later of two repositories whose names normalise alike gets the suffix even if the earlier never qualified", () => {
    const { names } = activate(
      repo("r0", "acme/base", "X"),
      repo("r1", "acme/my-api", "Y"),
      repo("r2", "other/My.Api", "X"),
    );
    expect(names["other/My.Api X"]).toBe(`REPO_MY_API_${suffixForRepositoryId("r2")}__X`);
  });

  it("the same repository always gets the same suffix", () => {
    expect(suffixForRepositoryId("repo_42")).toBe(suffixForRepositoryId("repo_42"));
    expect(suffixForRepositoryId("repo_42")).toMatch(/^[0-9A-Z]{7}$/);
    expect(suffixForRepositoryId("repo_42")).not.toBe(suffixForRepositoryId("repo_43"));
    const a = activate(repo("r0", "x/api", "V"), repo("r1", "x/api-", "V"), repo("repo_42", "y/API", "V"));
    const b = activate(
      repo("r9", "z/api", "V"),
      repo("r8", "q/a-p-i", "V"),
      repo("r7", "x/Api", "V"),
      repo("repo_42", "y/API", "V"),
    );
    expect(a.names["y/API V"]).toBe(`REPO_API_${suffixForRepositoryId("repo_42")}__V`);
    expect(b.names["y/API V"]).toBe(a.names["y/API V"]);
  });

  it("a repository name that normalises to nothing is qualified by its id suffix", () => {
    const { names } = activate(repo("r1", "acme/api", "V"), repo("r2", "acme/...", "V"));
    expect(names["acme/... V"]).toBe(`REPO_${suffixForRepositoryId("r2")}__V`);
  });

  it("assignments survive follow-up turns: re-activating returns the same names", () => {
    const first = activate(repo("r1", "acme/api", "V"), repo("r2", "acme/web", "V"));
    const again = assignVariableNames(first.ledger, repo("r2", "acme/web", "V"));
    expect(again.assignments[0]!.assigned).toBe("REPO_WEB__V");
    expect(again.ledger).toEqual(first.ledger);
  });

  it("assignments are sticky: a repository keeps its qualifier after being renamed", () => {
    const first = activate(repo("r1", "acme/api", "V", "W"), repo("r2", "acme/web", "V"));
    const renamed = assignVariableNames(first.ledger, repo("r2", "acme/frontend", "V", "W"));
    expect(renamed.assignments.map((a) => a.assigned)).toEqual(["REPO_WEB__V", "REPO_WEB__W"]);
  });

  it("a disconnected repository's names stay reserved and are never handed to another", () => {
    const first = activate(repo("r1", "acme/api", "V"));
    const reserved = reserveRepositoryNames(first.ledger, "r1");
    expect(reserved.entries[0]!.status).toBe("reserved");
    const other = assignVariableNames(reserved, repo("r2", "acme/web", "V"));
    expect(other.assignments[0]!.assigned).toBe("REPO_WEB__V");
  });

  it("a reserved qualified name is not handed to a later repository with the same qualifier", () => {
    const first = activate(repo("r1", "acme/base", "V"), repo("r2", "acme/web", "V"));
    const reserved = reserveRepositoryNames(first.ledger, "r2");
    const other = assignVariableNames(reserved, repo("r3", "other/web", "V"));
    expect(other.assignments[0]!.assigned).toBe(`REPO_WEB_${suffixForRepositoryId("r3")}__V`);
  });

  it("a reconnected repository gets its own reserved names back, live again", () => {
    const first = activate(repo("r1", "acme/api", "V"), repo("r2", "acme/web", "V"));
    const reserved = reserveRepositoryNames(first.ledger, "r1");
    const back = assignVariableNames(reserved, repo("r1", "acme/api", "V"));
    expect(back.assignments[0]!.assigned).toBe("V");
    expect(back.ledger.entries.filter((e) => e.repositoryId === "r1").map((e) => e.status)).toEqual(["live"]);
  });

  it("reserving an unknown repository changes nothing", () => {
    const first = activate(repo("r1", "acme/api", "V"));
    expect(reserveRepositoryNames(first.ledger, "nope")).toEqual(first.ledger);
  });

  it("a variable literally named like another's qualified name steps aside deterministically", () => {
    const { names } = activate(
      repo("r1", "acme/api", "V"),
      repo("r2", "acme/web", "V"),
      repo("r3", "acme/x", "REPO_WEB__V"),
      repo("r4", "acme/y", "REPO_WEB__V"),
    );
    expect(names["acme/x REPO_WEB__V"]).toBe("REPO_X__REPO_WEB__V");
    expect(names["acme/y REPO_WEB__V"]).toBe("REPO_Y__REPO_WEB__V");
    const clash = activate(repo("r1", "a/a", "REPO_WEB__V", "V"), repo("r2", "a/web", "V"));
    expect(clash.names["a/web V"]).toBe(`REPO_WEB_${suffixForRepositoryId("r2")}__V`);
  });

  it("a name listed twice is assigned once, and reported at each position so callers can zip by index", () => {
    const result = assignVariableNames(empty, repo("r1", "acme/api", "V", "W", "V"));
    expect(result.assignments.map((a) => a.assigned)).toEqual(["V", "W", "V"]);
    expect(result.ledger.entries).toHaveLength(2);
  });

  it("does not mutate the ledger it is given", () => {
    const ledger: NamingLedger = { entries: Object.freeze([]) };
    expect(() => assignVariableNames(ledger, repo("r1", "acme/api", "V"))).not.toThrow();
  });

  it("deterministic: the same ledger and input give the same output", () => {
    const base = activate(repo("r1", "acme/api", "A", "B"), repo("r2", "acme/b", "A"));
    const input = repo("r3", "acme/c", "A", "B", "C");
    expect(assignVariableNames(base.ledger, input)).toEqual(assignVariableNames(base.ledger, input));
  });

  it.each([["9LIVES"], ["A-B"], [""], ["HAS SPACE"], ["caf\u00e9"], ["X\nY"]])(
    "names that are not [A-Za-z_][A-Za-z0-9_]* are refused with an error naming them: %j",
    (bad) => {
      let caught: unknown;
      try {
        assignVariableNames(empty, repo("r1", "acme/api", "GOOD", bad));
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InputError);
      expect((caught as InputError).message).toContain(JSON.stringify(bad));
      expect((caught as InputError).path).toBe("variables[1]");
    },
  );

  it.each([["_"], ["_private"], ["a"], ["lower_case1"]])("accepts the shell name %s", (name) => {
    expect(assignVariableNames(empty, repo("r1", "acme/api", name)).assignments[0]!.assigned).toBe(name);
  });

  it("an empty repositoryId is refused", () => {
    expect(() => assignVariableNames(empty, repo("", "acme/api", "V"))).toThrow(InputError);
  });
});
