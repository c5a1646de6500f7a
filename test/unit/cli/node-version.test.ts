import { describe, expect, it } from "vitest";
import { unsupportedNodeMessage } from "../../../src/cli/node-version.js";

describe("the CLI's Node version check", () => {
  it.each(["v22.0.0", "v22.12.1", "v23.1.0", "v30.0.0"])("accepts %s", (version) => {
    expect(unsupportedNodeMessage(version)).toBeNull();
  });

  it.each(["v20.20.2", "v18.19.0", "garbage", ""])("refuses %j, naming the Node it needs", (version) => {
    expect(unsupportedNodeMessage(version)).toBe(
      `baton: needs Node 22 or newer, and this is Node ${version}; run it with Node 22 (in this repository, npx baton or npm run puts the project's Node 22 first)`,
    );
  });
});
