// The pure throttle every credential surface shares: limits as data, the clock passed in.
import { describe, expect, it } from "vitest";
import { FailedCredentialThrottle } from "../../../src/throttle/failed-credentials.js";
import { sourceKeyOf } from "../../../src/throttle/source-address.js";

const LIMITS = { maxFailures: 3, windowMs: 60_000, maxSources: 4 };

function failTimes(throttle: FailedCredentialThrottle, source: string, times: number, atMs: number) {
  return Array.from({ length: times }, () => throttle.recordFailure(source, atMs));
}

describe("FailedCredentialThrottle", () => {
  it("blocks a source once it reaches maxFailures in a window, until the window has passed", () => {
    const throttle = new FailedCredentialThrottle(LIMITS);
    failTimes(throttle, "a", 2, 0);
    expect(throttle.check("a", 1_000)).toEqual({ throttled: false });
    throttle.recordFailure("a", 10_000);
    expect(throttle.check("a", 10_000)).toEqual({ throttled: true, retryAfterSeconds: 60 });
    expect(throttle.check("a", 69_001)).toEqual({ throttled: true, retryAfterSeconds: 1 });
    expect(throttle.check("a", 70_000)).toEqual({ throttled: false });
  });

  it("failures spread over more than a window do not add up", () => {
    const throttle = new FailedCredentialThrottle(LIMITS);
    failTimes(throttle, "a", 2, 0);
    failTimes(throttle, "a", 2, 60_000);
    expect(throttle.check("a", 60_001)).toEqual({ throttled: false });
  });

  it("nothing but time lifts a block: there is no reset on success", () => {
    const throttle = new FailedCredentialThrottle(LIMITS);
    failTimes(throttle, "a", 3, 0);
    for (let t = 0; t < 60_000; t += 5_000) expect(throttle.check("a", t).throttled).toBe(true);
  });

  it("another source is not affected", () => {
    const throttle = new FailedCredentialThrottle(LIMITS);
    failTimes(throttle, "a", 3, 0);
    expect(throttle.check("b", 0)).toEqual({ throttled: false });
  });

  it("reports at most two lines a window: the first failure and the start of the block", () => {
    const throttle = new FailedCredentialThrottle(LIMITS);
    const reports = failTimes(throttle, "a", 3, 0).filter((r) => r !== null);
    throttle.check("a", 1);
    throttle.check("a", 2);
    expect(reports).toEqual([
      { kind: "failed", failures: 1, previousFailures: 0, previousRefused: 0 },
      { kind: "throttled", failures: 3, retryAfterSeconds: 60 },
    ]);
    // The next window's first line says what the last one held, refusals included.
    expect(throttle.recordFailure("a", 60_000)).toEqual({
      kind: "failed",
      failures: 1,
      previousFailures: 3,
      previousRefused: 2,
    });
  });

  it("tracks at most maxSources, forgetting the one that failed least recently", () => {
    const throttle = new FailedCredentialThrottle(LIMITS);
    for (let i = 0; i < 1_000; i++) throttle.recordFailure(`10.0.${i >> 8}.${i & 255}`, i);
    expect(throttle.size).toBe(LIMITS.maxSources);
    failTimes(throttle, "blocked", 3, 2_000);
    throttle.recordFailure("x", 2_001);
    throttle.recordFailure("y", 2_002);
    throttle.check("blocked", 2_003);
    throttle.recordFailure("z", 2_004);
    // The blocked source was refused after x and y failed, so it is not the one forgotten.
    expect(throttle.size).toBe(LIMITS.maxSources);
    expect(throttle.check("blocked", 2_005).throttled).toBe(true);
  });
});

describe("sourceKeyOf", () => {
  it.each([
    [undefined, null],
    ["127.0.0.1", "127.0.0.1"],
    ["::ffff:127.0.0.2", "127.0.0.2"],
    ["2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:bbbb:cccc:dddd:eeee", "2001:db8:1:2::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
  ])("%s counts as %s", (address, key) => {
    expect(sourceKeyOf(address)).toBe(key);
  });
});
