// Issue 34: permission requests are answered by a written policy: the box is the boundary, so allow, choosing the
// option an agent offers for "always" where it has one; once the turn is cancelling, `cancelled` (ACP).
import type { PermissionOption } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { decidePermission } from "../../../../../../src/server/adapters/agents/acp/permission-policy.js";

const option = (kind: PermissionOption["kind"]): PermissionOption => ({
  optionId: `id-${kind}`,
  name: kind,
  kind,
});

describe("decidePermission", () => {
  const cases: [string, PermissionOption["kind"][], string | "cancelled"][] = [
    ["allow_always where offered", ["allow_once", "allow_always", "reject_once"], "id-allow_always"],
    ["allow_always whatever the order", ["reject_always", "allow_always", "allow_once"], "id-allow_always"],
    ["allow_once when there is no always", ["reject_once", "allow_once"], "id-allow_once"],
    ["reject_once when nothing allows", ["reject_always", "reject_once"], "id-reject_once"],
    ["reject_always when it is all there is", ["reject_always"], "id-reject_always"],
    ["cancelled when nothing is offered", [], "cancelled"],
  ];
  for (const [what, kinds, expected] of cases)
    it(what, () => {
      const outcome = decidePermission(kinds.map(option), { cancelling: false });
      expect(outcome).toEqual(
        expected === "cancelled" ? { outcome: "cancelled" } : { outcome: "selected", optionId: expected },
      );
    });

  it("answers `cancelled` once the client has sent session/cancel", () => {
    expect(decidePermission([option("allow_always")], { cancelling: true })).toEqual({
      outcome: "cancelled",
    });
  });
});
