// DESIGN "--api-url": the flag must be https (reference); a plain-http loopback service is reached only through
// BATON_API_URL, which wins over the saved and default address.
import { describe, expect, it } from "vitest";
import { DEFAULT_API_URL, parseApiUrlFlag, resolveApiUrl } from "../../../src/client/api-url.js";

describe("--api-url must be https", () => {
  it.each([
    ["https://baton.acme.test", "https://baton.acme.test"],
    ["https://baton.acme.test/", "https://baton.acme.test"],
    ["https://baton.acme.test:8443/base/", "https://baton.acme.test:8443/base"],
  ])("%s is accepted as %s", (flag, url) => {
    expect(parseApiUrlFlag(flag)).toBe(url);
  });

  it.each([
    ["http://baton.acme.test", "https://"],
    ["http://127.0.0.1:8080", "BATON_API_URL"],
    ["ftp://baton.acme.test", "https://"],
    ["baton.acme.test", "not an address"],
    ["https://user:pw@baton.acme.test", "user name or password"],
    ["https://baton.acme.test/?x=1", "query"],
  ])("%s is refused, the message naming %s", (flag, says) => {
    expect(() => parseApiUrlFlag(flag)).toThrow(says);
  });
});

describe("BATON_API_URL: http only on loopback (127.0.0.0/8, ::1, localhost), else https", () => {
  it.each([
    ["http://127.0.0.1:4000", "http://127.0.0.1:4000"],
    ["http://127.9.8.7:4000/", "http://127.9.8.7:4000"],
    ["http://[::1]:4000", "http://[::1]:4000"],
    ["http://localhost:4000", "http://localhost:4000"],
    ["https://baton.acme.test", "https://baton.acme.test"],
  ])("%s is used as %s", (env, url) => {
    expect(resolveApiUrl({ env: { BATON_API_URL: env }, saved: "https://saved.test" })).toBe(url);
  });

  it.each([
    "http://baton.acme.test",
    "http://10.0.0.1:4000",
    "http://128.0.0.1",
    "http://localhost.evil.test",
    "nonsense",
  ])("%s is refused, naming BATON_API_URL", (env) => {
    expect(() => resolveApiUrl({ env: { BATON_API_URL: env } })).toThrow("BATON_API_URL");
  });
});

describe("which address is used", () => {
  it.each([
    [
      "the flag first",
      { flag: "https://flag.test", env: { BATON_API_URL: "https://env.test" }, saved: "https://saved.test" },
      "https://flag.test",
    ],
    [
      "then BATON_API_URL",
      { env: { BATON_API_URL: "https://env.test" }, saved: "https://saved.test" },
      "https://env.test",
    ],
    ["then the saved one", { env: {}, saved: "https://saved.test" }, "https://saved.test"],
    [
      "an empty BATON_API_URL is unset",
      { env: { BATON_API_URL: "" }, saved: "https://saved.test" },
      "https://saved.test",
    ],
    ["then the default", { env: {} }, DEFAULT_API_URL],
  ])("%s", (_what, input, url) => {
    expect(resolveApiUrl(input)).toBe(url);
  });

  it("a saved address that is not https nor loopback is refused, naming baton login", () => {
    expect(() => resolveApiUrl({ env: {}, saved: "http://baton.acme.test" })).toThrow("baton login");
  });
});
