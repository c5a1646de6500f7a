import { describe, expect, it } from "vitest";
import { maskRecipient } from "../../../src/server/domain/capability/manage.js";
import { dashboardLink, renderCapabilityEmail } from "../../../src/server/domain/capability/render-email.js";

describe("notification e-mail", () => {
  const facts = {
    workspaceName: "Acme",
    repository: "acme/api",
    capability: "registry_access",
    target: "registry.example.com",
    requestId: "cr_123",
    reason: "npm install gets 401",
    dashboardUrl: dashboardLink("https://dash.example/", "ws acme", "repo_api", "cr_123"),
  };
  it.each(["new_request", "repair"] as const)(
    "%s names repository, capability, target, request id and the dashboard link",
    (kind) => {
      const { subject, text } = renderCapabilityEmail({ ...facts, kind });
      expect(subject).toContain("cr_123");
      for (const part of ["acme/api", "registry_access", "registry.example.com", "cr_123"])
        expect(text).toContain(part);
      expect(text).toContain(
        "https://dash.example/workspaces/ws%20acme/repos/repo_api/capability-requests/cr_123",
      );
    },
  );
  it("masks recipients for the sandbox's view", () => {
    expect(maskRecipient("owner@acme.test")).toBe("o***@acme.test");
  });
});
