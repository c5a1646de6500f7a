// `baton serve --sandbox-pool-size` and `--sandbox-pool-min-free-memory`: checked before anything starts, with
// the defaults the operator guide gives (docs/operators.md).
import { describe, expect, it } from "vitest";
import { poolOptionsOf } from "../../../../../src/server/adapters/sandboxes/start.js";
import { parseServeFlags } from "../../../../../src/server/serve-options.js";

const base = { host: "127.0.0.1", port: 0 };

describe("the pool's flags", () => {
  it.each([
    [{ sandboxPoolSize: 65 }, "--sandbox-pool-size must be 0 to 64 boxes"],
    [{ sandboxPoolSize: -1 }, "--sandbox-pool-size must be 0 to 64 boxes"],
    [{ sandboxPoolSize: 1.5 }, "--sandbox-pool-size must be a whole number of boxes"],
    [{ sandboxPoolMinFreeMemory: 2_000_000 }, "--sandbox-pool-min-free-memory must be 0 to 1048576 MiB"],
  ])("%j is refused naming the flag", (flags, message) => {
    expect(() => parseServeFlags({ ...base, ...flags })).toThrow(message);
  });

  it("defaults to two boxes and a 4096 MiB floor; 0 is a pool turned off, kept as given", () => {
    expect(poolOptionsOf(undefined, undefined)).toEqual({ size: 2, minFreeMemoryBytes: 4096 * 1024 * 1024 });
    const flags = parseServeFlags({ ...base, sandboxPoolSize: 0, sandboxPoolMinFreeMemory: 512 });
    expect(poolOptionsOf(flags.sandboxPoolSize, flags.sandboxPoolMinFreeMemory)).toEqual({
      size: 0,
      minFreeMemoryBytes: 512 * 1024 * 1024,
    });
  });
});
