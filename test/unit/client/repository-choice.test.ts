// Reference section 4 rule 2: "inside a git checkout the client uses the checkout's code-host repository: origin
// first, then upstream; another code-host remote only if neither is on the code host; SSH host aliases count when
// they resolve to the code host".
import { describe, expect, it } from "vitest";
import { chooseCandidates, codehostHosts, parseRemoteUrl } from "../../../src/client/repository-choice.js";

describe("parseRemoteUrl", () => {
  it.each([
    ["https://github.com/acme/api.git", { host: "github.com", ssh: false, repo: "acme/api" }],
    ["https://github.com/acme/api", { host: "github.com", ssh: false, repo: "acme/api" }],
    ["https://github.com/acme/api/", { host: "github.com", ssh: false, repo: "acme/api" }],
    ["https://user:pw@GitHub.com/acme/api.git/", { host: "github.com", ssh: false, repo: "acme/api" }],
    ["git@github.com:acme/api.git", { host: "github.com", ssh: true, repo: "acme/api" }],
    ["github.com:acme/api", { host: "github.com", ssh: true, repo: "acme/api" }],
    ["gh-work:acme/api.git", { host: "gh-work", ssh: true, repo: "acme/api" }],
    ["ssh://git@github.com:22/acme/api.git", { host: "github.com", ssh: true, repo: "acme/api" }],
    ["ssh://github.com/acme/api", { host: "github.com", ssh: true, repo: "acme/api" }],
    ["git+ssh://git@github.com/acme/api.git", { host: "github.com", ssh: true, repo: "acme/api" }],
  ])("%s names %o", (url, expected) => {
    expect(parseRemoteUrl(url)).toEqual(expected);
  });

  it.each([
    ["a local path", "/srv/git/api.git"],
    ["a file URL", "file:///srv/git/acme/api.git"],
    ["a path with three segments", "https://gitlab.example/group/sub/api.git"],
    ["only an owner", "https://github.com/acme"],
    ["an empty string", ""],
  ])("%s names no repository", (_what, url) => {
    expect(parseRemoteUrl(url)).toBeUndefined();
  });
});

describe("chooseCandidates", () => {
  const hosts = ["github.com"];
  const aliases: Record<string, string> = { "gh-work": "github.com", "other-alias": "gitlab.com" };
  const resolve = (host: string) => aliases[host] ?? host;
  const remote = (name: string, url: string) => ({ name, url });

  it.each([
    [
      "origin first, then upstream",
      [remote("upstream", "https://github.com/acme/api"), remote("origin", "git@github.com:me/api.git")],
      ["origin me/api", "upstream acme/api"],
    ],
    [
      "another code-host remote only when neither origin nor upstream is on the code host",
      [
        remote("origin", "https://gitlab.com/me/api"),
        remote("zeta", "https://github.com/z/api"),
        remote("fork", "https://github.com/f/api"),
      ],
      ["fork f/api", "zeta z/api"],
    ],
    [
      "others are not tried when origin is on the code host",
      [remote("origin", "https://github.com/acme/api"), remote("fork", "https://github.com/f/api")],
      ["origin acme/api"],
    ],
    [
      "an SSH alias counts when it resolves to the code host",
      [remote("origin", "gh-work:acme/api.git"), remote("upstream", "other-alias:acme/api.git")],
      ["origin acme/api"],
    ],
    ["no remote on the code host: none", [remote("origin", "https://gitlab.com/me/api")], []],
    ["an https host is never resolved as an alias", [remote("origin", "https://gh-work/acme/api")], []],
  ])("%s", (_rule, remotes, expected) => {
    expect(chooseCandidates(remotes, hosts, resolve).map((c) => `${c.remote} ${c.repo}`)).toEqual(expected);
  });
});

describe("codehostHosts", () => {
  it.each([
    [{}, ["github.com"]],
    [{ BATON_CODEHOST_HOSTS: "" }, ["github.com"]],
    [{ BATON_CODEHOST_HOSTS: " GHE.acme.test , github.com," }, ["ghe.acme.test", "github.com"]],
  ])("%o → %o", (env, expected) => {
    expect(codehostHosts(env)).toEqual(expected);
  });
});
