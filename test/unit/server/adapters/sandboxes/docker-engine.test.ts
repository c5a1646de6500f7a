// Which Docker client failures mean "no engine here" (issue 21, item 17), as plain data.
import { describe, expect, it } from "vitest";
import { describeEngineFailure } from "../../../../../src/server/adapters/sandboxes/drivers/docker-engine.js";

const connect = (code: string, address: string, port?: number) =>
  Object.assign(new Error(`connect ${code} ${address}`), { code, syscall: "connect", address, port });

describe("describeEngineFailure", () => {
  it.each([
    [
      "no socket file",
      connect("ENOENT", "/var/run/docker.sock"),
      undefined,
      "at /var/run/docker.sock (ENOENT)",
    ],
    [
      "a socket nobody listens on",
      connect("ECONNREFUSED", "/run/docker.sock"),
      "unix:///run/docker.sock",
      "at /run/docker.sock (from DOCKER_HOST) (ECONNREFUSED)",
    ],
    [
      "a TCP engine address nobody listens on",
      connect("ECONNREFUSED", "127.0.0.1", 2375),
      "tcp://127.0.0.1:2375",
      "at 127.0.0.1:2375 (from DOCKER_HOST) (ECONNREFUSED)",
    ],
    [
      "a host name that does not resolve",
      Object.assign(new Error("getaddrinfo ENOTFOUND docker.invalid"), {
        code: "ENOTFOUND",
        syscall: "getaddrinfo",
      }),
      "tcp://docker.invalid:2375",
      "at DOCKER_HOST=tcp://docker.invalid:2375 (from DOCKER_HOST) (ENOTFOUND)",
    ],
  ])("%s: no engine answers, with the fixes", (_case, error, dockerHost, where) => {
    const described = describeEngineFailure(error, dockerHost);
    expect(described?.code).toBe("not_configured");
    expect(described?.message).toContain(`no Docker engine answers ${where}: start one`);
    expect(described?.message).toContain("--driver namespace");
    expect(described?.cause).toBe(error);
  });

  it("a socket that refuses this user names the docker group, not a missing engine", () => {
    const described = describeEngineFailure(connect("EACCES", "/var/run/docker.sock"), undefined);
    expect(described?.message).toMatch(
      /^the Docker engine's socket \/var\/run\/docker.sock refuses this user/,
    );
  });

  it.each([
    ["an engine's refusal", Object.assign(new Error("(HTTP code 409) conflict"), { statusCode: 409 })],
    [
      "a failure that is not a connection",
      Object.assign(new Error("EPIPE"), { code: "EPIPE", syscall: "write" }),
    ],
    ["not an Error", "boom"],
    ["nothing", undefined],
  ])("%s is left as it is (null)", (_case, error) => {
    expect(describeEngineFailure(error, undefined)).toBeNull();
  });
});
