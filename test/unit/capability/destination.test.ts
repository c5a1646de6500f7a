// DESIGN "Approved destinations of a secret": a host (exact or *.), optionally with scheme, port and path prefix;
// a bare host means https, port 443, any path.
import { describe, expect, it } from "vitest";
import {
  destinationMatches,
  parseApprovedDestination,
  pathUnderPrefix,
} from "../../../src/capability/destination.js";

describe("parsing an approved destination", () => {
  it.each([
    ["api.acme.test", { scheme: "https", host: "api.acme.test", port: 443, pathPrefix: "/" }],
    ["*.acme.test", { scheme: "https", host: "*.acme.test", port: 443, pathPrefix: "/" }],
    [
      "https://api.acme.test:8443/v2/",
      { scheme: "https", host: "api.acme.test", port: 8443, pathPrefix: "/v2/" },
    ],
    ["http://registry.acme.test", { scheme: "http", host: "registry.acme.test", port: 80, pathPrefix: "/" }],
    ["api.acme.test./v1", { scheme: "https", host: "api.acme.test", port: 443, pathPrefix: "/v1" }],
  ])("%s", (text, expected) => {
    expect(parseApprovedDestination(text)).toEqual(expected);
  });

  it.each([
    "API.acme.test",
    "ftp://api.acme.test",
    "https://api.acme.test:0",
    "https://api.acme.test:70000",
    "https://user@api.acme.test",
    "api.acme.test/v2/../admin",
    "api.acme.test/v2?x=1",
    "",
    "*",
  ])("%s is refused", (text) => {
    expect(parseApprovedDestination(text)).toBeNull();
  });
});

describe("matching a request against a destination", () => {
  const bare = parseApprovedDestination("api.acme.test")!;
  const scoped = parseApprovedDestination("https://api.acme.test:8443/v2/")!;
  const wildcard = parseApprovedDestination("*.acme.test")!;

  it.each([
    [bare, { scheme: "https", host: "api.acme.test", port: 443, path: "/anything?q=1" }, true],
    [bare, { scheme: "https", host: "API.Acme.Test.", port: 443, path: "/" }, true],
    [bare, { scheme: "https", host: "api.acme.test", port: 8443, path: "/" }, false],
    [bare, { scheme: "http", host: "api.acme.test", port: 443, path: "/" }, false],
    [bare, { scheme: "https", host: "evil-api.acme.test", port: 443, path: "/" }, false],
    [scoped, { scheme: "https", host: "api.acme.test", port: 8443, path: "/v2/charges" }, true],
    [scoped, { scheme: "https", host: "api.acme.test", port: 8443, path: "/v1/charges" }, false],
    [scoped, { scheme: "https", host: "api.acme.test", port: 8443, path: "/v2/../v1/charges" }, false],
    [scoped, { scheme: "https", host: "api.acme.test", port: 8443, path: "/v2/%2e%2e/v1" }, false],
    [wildcard, { scheme: "https", host: "a.b.acme.test", port: 443, path: "/" }, true],
    [wildcard, { scheme: "https", host: "acme.test", port: 443, path: "/" }, false],
    [wildcard, { scheme: "https", host: "xacme.test", port: 443, path: "/" }, false],
  ] as const)("%o and %o -> %s", (destination, request, expected) => {
    expect(destinationMatches(destination, request)).toBe(expected);
  });

  it("a prefix without a slash covers itself and what is below it, not a longer name", () => {
    expect(pathUnderPrefix("/v2", "/v2")).toBe(true);
    expect(pathUnderPrefix("/v2", "/v2/x")).toBe(true);
    expect(pathUnderPrefix("/v2", "/v2x")).toBe(false);
  });
});
