import { describe, expect, it } from "vitest";
import { mergeRepositoryEnvironments } from "../../../src/dockerfile/merge-environment.js";

describe("mergeRepositoryEnvironments", () => {
  it("first repository keeps the plain name; a later different value gets REPO_<NAME>__<VAR>; equal values merge", () => {
    const merged = mergeRepositoryEnvironments([
      {
        repository: "acme/api",
        variables: [
          { name: "PORT", value: "1" },
          { name: "MODE", value: "x" },
        ],
      },
      {
        repository: "acme/web",
        variables: [
          { name: "PORT", value: "2" },
          { name: "MODE", value: "x" },
        ],
      },
      { repository: "other/web", variables: [{ name: "PORT", value: "3" }] },
    ]);
    expect(merged.entries.map((e) => [e.assigned, e.value, e.repository, e.sharedWith])).toEqual([
      ["PORT", "1", "acme/api", []],
      ["MODE", "x", "acme/api", ["acme/web"]],
      ["REPO_WEB__PORT", "2", "acme/web", []],
      [expect.stringMatching(/^REPO_WEB_[0-9A-Z]{7}__PORT$/), "3", "other/web", []],
    ]);
    expect(merged.conflicts).toHaveLength(1);
    expect(merged.conflicts[0]!.assignments.map((a) => a.repository)).toEqual([
      "acme/api",
      "acme/web",
      "other/web",
    ]);
  });

  it("re-merging the same input gives the same names (stable across re-application)", () => {
    const input = [
      { repository: "a/x", variables: [{ name: "V", value: "1" }] },
      { repository: "b/y", variables: [{ name: "V", value: "2" }] },
    ];
    expect(mergeRepositoryEnvironments(input)).toEqual(mergeRepositoryEnvironments(input));
  });
});
