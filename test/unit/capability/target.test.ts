import { describe, expect, it } from "vitest";
import { normaliseCapabilityTarget, validateCapabilityReason } from "../../../src/capability/index.js";
import { InputError } from "../../../src/errors.js";

describe("hosts and URLs normalise to the lowercase hostname (scheme, port and path dropped)", () => {
  it.each([
    ["registry.example.com", "registry.example.com"],
    ["https://Registry.Example.com:443/x", "registry.example.com"],
    ["Registry.Example.COM.", "registry.example.com"],
    ["registry.example.com:5000/v2/", "registry.example.com"],
    ["oci://Ghcr.IO/acme/image", "ghcr.io"],
    ["https://bücher.example/pkg", "xn--bcher-kva.example"],
    ["Bücher.Example.", "xn--bcher-kva.example"],
    ["http://10.0.0.5:8080", "10.0.0.5"],
    ["http://[2001:DB8:0::1]:8080/x", "2001:db8::1"],
    ["  api.stripe.com  ", "api.stripe.com"],
  ])("%s -> host %s", (input, host) => {
    expect(normaliseCapabilityTarget(input)).toEqual({ form: "host", value: host });
  });

  it.each([["orders database (prod)"], ["Acme Billing Sandbox"], ["s3 bucket acme-ml-datasets"]])(
    "non-URL name %s keeps its identity",
    (input) => {
      expect(normaliseCapabilityTarget(input)).toEqual({ form: "name", value: input });
    },
  );
});

describe("refused targets say why and never echo the value", () => {
  it.each([
    ["https://bob:Hunter2pass@registry.example.com/x", /credentials/],
    ["https://bob@registry.example.com/x", /credentials/],
    ["https://registry.example.com/x?token=abc", /query string/],
    ["https://registry.example.com/x?", /query string/],
    ["https://registry.example.com/x#frag", /fragment/],
    ["registry.example.com/x?y=1", /query string/],
    ["NPM_TOKEN", /environment-variable name/],
    ["$NPM_TOKEN", /environment-variable name/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell spelling of a variable is the input here
    ["${GITHUB_TOKEN}", /environment-variable name/],
    ["ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z", /secret/],
    ["xK9mQ2vL7pR4tW8zB3nF6hJ1dS5gA0cE", /secret/],
    ["npm ERR! code E401\nnpm ERR! 401 Unauthorized", /log output/],
    ["", /empty/],
    ["x".repeat(600), /longer than/],
  ])("%s", (input, why) => {
    let error: unknown;
    try {
      normaliseCapabilityTarget(input);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    const message = (error as Error).message;
    expect(message).toMatch(why);
    if (input.length > 3) expect(message).not.toContain(input.trim());
  });
});

describe("reasons are free text but never secrets or raw logs", () => {
  it("accepts a sentence", () => {
    expect(validateCapabilityReason(" npm install gets 401 from the private registry ")).toBe(
      "npm install gets 401 from the private registry",
    );
  });
  it.each([
    ["the token is ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"],
    ["password=hunter22 did not work"],
    [
      "Error: boom\n    at Object.<anonymous> (/app/index.js:1:7)\n    at Module._compile (node:internal:1:1)",
    ],
    ["2024-01-01T10:00:00Z GET /x 401"],
  ])("refuses %j without echoing it", (input) => {
    expect(() => validateCapabilityReason(input)).toThrow(/not shown/);
    try {
      validateCapabilityReason(input);
    } catch (error) {
      expect((error as Error).message).not.toContain(input);
    }
  });
});
