// A Docker box's copy of the account files gives the agent the box's own uid (issue 35 C.17).
import { describe, expect, it } from "vitest";
import { renumberAgent } from "../../../../../../src/server/adapters/sandboxes/drivers/box-account.js";

const PASSWD = [
  "root:x:0:0:root:/root:/bin/bash",
  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
  "agent:x:1000:1000:Baton agent:/home/agent:/bin/bash",
  "",
].join("\n");
const GROUP = ["root:x:0:", "users:x:100:agent", "agent:x:1000:", ""].join("\n");

describe("renumberAgent", () => {
  it("gives the agent's passwd line and group the box's uid and leaves every other line as it was", () => {
    expect(renumberAgent({ passwd: PASSWD, group: GROUP }, 200007)).toEqual({
      passwd: PASSWD.replace("agent:x:1000:1000:", "agent:x:200007:200007:"),
      group: GROUP.replace("agent:x:1000:", "agent:x:200007:"),
    });
  });

  it.each([
    ["no agent account at all", "root:x:0:0:root:/root:/bin/bash\n", "root:x:0:\n"],
    ["files without a final newline", "root:x:0:0:root:/root:/bin/bash", "root:x:0:"],
    ["empty files (the image has none)", "", ""],
  ])(
    "adds an agent with the box's uid and home /home/agent to an image's files with %s",
    (_, passwd, group) => {
      const renumbered = renumberAgent({ passwd, group }, 200001);
      expect(renumbered.passwd.split("\n")).toContain(
        "agent:x:200001:200001:Baton agent:/home/agent:/bin/bash",
      );
      expect(renumbered.group.split("\n")).toContain("agent:x:200001:");
      expect(renumbered.passwd.startsWith(passwd)).toBe(true);
      expect(renumbered.passwd.endsWith("\n")).toBe(true);
    },
  );

  it("keeps a passwd line's own group when it is not the agent's", () => {
    const renumbered = renumberAgent({ passwd: "dev:x:1000:100::/home/dev:/bin/sh\n", group: "" }, 200002);
    expect(renumbered.passwd).toBe("dev:x:200002:100::/home/dev:/bin/sh\n");
  });

  it("never matches 1000 elsewhere on a line (a gid or a name)", () => {
    const passwd = "u1000:x:1001:1000::/home/u:/bin/sh\nagent:x:1000:1000::/home/agent:/bin/bash\n";
    const renumbered = renumberAgent({ passwd, group: "g:x:1001:1000\nagent:x:1000:\n" }, 200003);
    expect(renumbered.passwd).toBe(
      "u1000:x:1001:1000::/home/u:/bin/sh\nagent:x:200003:200003::/home/agent:/bin/bash\n",
    );
    expect(renumberAgent({ passwd, group: "g:x:1001:1000\nagent:x:1000:\n" }, 200003).group).toBe(
      "g:x:1001:1000\nagent:x:200003:\n",
    );
  });
});
