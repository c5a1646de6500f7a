// ENV/ARG scope, build args and stages, with cases written from the Dockerfile reference
// (https://docs.docker.com/reference/dockerfile/ "ARG", "ENV", "Scope", "Using ARG variables", "FROM").
import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planDockerfile } from "../../../src/dockerfile/plan.js";
import { resolveWorkdir } from "../../../src/dockerfile/resolve.js";
import type { PlanStep } from "../../../src/dockerfile/types.js";

function plan(text: string, options: Parameters<typeof planDockerfile>[1] = {}) {
  return planDockerfile(text, { baseEnv: {}, ...options });
}

function runs(steps: PlanStep[]): PlanStep[] {
  return steps.filter((s) => s.action === "run");
}

describe("ARG scope and precedence", () => {
  it("an ARG is visible from the line after it is declared (reference: USER ${username:-some_user})", () => {
    const text = "FROM busybox\nUSER ${username:-some_user}\nARG username\nUSER $username\n";
    const steps = plan(text, { buildArgs: { username: "what_user" } }).steps;
    expect(steps[1]!.notes[0]).toContain("USER some_user ");
    expect(steps[3]!.notes[0]).toContain("USER what_user ");
  });

  it("ENV overrides an earlier ARG of the same name whatever the build arg says (CONT_IMG_VER)", () => {
    const text = "FROM ubuntu\nARG CONT_IMG_VER\nENV CONT_IMG_VER=v1.0.0\nRUN echo $CONT_IMG_VER\n";
    const step = runs(plan(text, { buildArgs: { CONT_IMG_VER: "v2.0.1" } }).steps)[0]!;
    expect(step.run!.env.CONT_IMG_VER).toBe("v1.0.0");
  });

  it("ENV CONT_IMG_VER=${CONT_IMG_VER:-v1.0.0} takes the build arg when given, the default otherwise", () => {
    const text = "FROM ubuntu\nARG CONT_IMG_VER\nENV CONT_IMG_VER=${CONT_IMG_VER:-v1.0.0}\nRUN echo\n";
    expect(plan(text).environment).toEqual([{ name: "CONT_IMG_VER", value: "v1.0.0" }]);
    expect(plan(text, { buildArgs: { CONT_IMG_VER: "v2.0.2" } }).environment).toEqual([
      { name: "CONT_IMG_VER", value: "v2.0.2" },
    ]);
  });

  it("a global ARG reaches FROM, and a stage only through a bare ARG of that name", () => {
    const text =
      "ARG VERSION=latest\nFROM busybox:$VERSION\nARG VERSION\nRUN echo $VERSION > image_version\n";
    const defaults = plan(text);
    expect(defaults.stages[0]!.base).toBe("busybox:latest");
    expect(runs(defaults.steps)[0]!.run!.env.VERSION).toBe("latest");
    const overridden = plan(text, { buildArgs: { VERSION: "1.36" } });
    expect(overridden.stages[0]!.base).toBe("busybox:1.36");
    expect(runs(overridden.steps)[0]!.run!.env.VERSION).toBe("1.36");
  });

  it("a global ARG not declared inside the stage is not visible there", () => {
    const text = "ARG SETTINGS=on\nFROM busybox\nRUN ./run/setup $SETTINGS\n";
    expect(runs(plan(text).steps)[0]!.run!.env).not.toHaveProperty("SETTINGS");
  });

  it("stage default < build arg; a bare stage ARG falls back to the global value", () => {
    const text = "ARG G=global\nFROM x\nARG A=stage\nARG G\nRUN true\n";
    expect(runs(plan(text).steps)[0]!.run!.env).toMatchObject({ A: "stage", G: "global" });
    expect(runs(plan(text, { buildArgs: { A: "cli", G: "cli-g" } }).steps)[0]!.run!.env).toMatchObject({
      A: "cli",
      G: "cli-g",
    });
  });

  it("ARG X= sets an empty value; ARG X with no value and no build arg leaves X unset", () => {
    const env = runs(plan("FROM x\nARG X=\nARG Y\nRUN true\n").steps)[0]!.run!.env;
    expect(env.X).toBe("");
    expect(env).not.toHaveProperty("Y");
  });

  it("ENV and ARG of one name: the later one wins for RUN; only ENV is persisted", () => {
    const result = plan("FROM x\nENV X=from-env\nARG X=from-arg\nRUN true\n");
    expect(runs(result.steps)[0]!.run!.env.X).toBe("from-arg");
    expect(result.environment).toEqual([{ name: "X", value: "from-env" }]);
  });

  it("several ARG names on one line, each resolved", () => {
    const step = plan('FROM x\nARG a=1 b="two words" c\nRUN true\n').steps[1]!;
    expect(step.arg).toEqual([
      { name: "a", value: "1" },
      { name: "b", value: "two words" },
      { name: "c", value: null },
    ]);
  });

  it("build args no ARG declares are reported as unused", () => {
    expect(plan("FROM x\nRUN true\n", { buildArgs: { NOPE: "1" } }).unusedBuildArgs).toEqual(["NOPE"]);
  });

  it("TARGETARCH and friends are available through ARG like BuildKit's automatic platform args", () => {
    const env = runs(plan("FROM x\nARG TARGETOS\nRUN true\n").steps)[0]!.run!.env;
    expect(env.TARGETOS).toBe("linux");
  });
});

describe("ENV forms", () => {
  it("each k=v pair expands against the environment before the instruction (reference: abc/def/ghi)", () => {
    const result = plan("FROM busybox\nENV abc=hello\nENV abc=bye def=$abc\nENV ghi=$abc\n");
    expect(result.environment).toEqual([
      { name: "abc", value: "bye" },
      { name: "def", value: "hello" },
      { name: "ghi", value: "bye" },
    ]);
  });

  it("the legacy `ENV key value` form takes the rest of the line as one value, quotes removed", () => {
    const result = plan('FROM x\nENV MY_NAME "John Doe"\nENV MY_DOG Rex\\ The\\ Dog\nENV SPACED a   b\n');
    expect(result.environment).toEqual([
      { name: "MY_NAME", value: "John Doe" },
      { name: "MY_DOG", value: "Rex The Dog" },
      { name: "SPACED", value: "a   b" },
    ]);
  });

  it("RUN, CMD and ENTRYPOINT text is left to the shell: no expansion at plan time", () => {
    const step = runs(plan("FROM x\nENV A=1\nRUN echo $A ${B:-x}\n").steps)[0]!;
    expect(step.run!.argv).toEqual(["/bin/sh", "-c", "echo $A ${B:-x}"]);
  });
});

describe("stages", () => {
  const text = [
    "FROM alpine AS Base",
    "ENV A=1",
    "ARG B=2",
    "RUN echo base",
    "FROM golang AS unrelated",
    "RUN echo unrelated",
    "FROM BASE AS final",
    "RUN echo final",
    "",
  ].join("\n");

  it("the target is the last stage; FROM <stage> (any case) inherits ENV and ARG and runs its steps first", () => {
    const result = plan(text);
    expect(result.target).toBe("final");
    expect(runs(result.steps).map((s) => s.run!.argv[2])).toEqual(["echo base", "echo final"]);
    expect(runs(result.steps)[1]!.run!.env).toMatchObject({ A: "1", B: "2" });
    expect(result.environment).toEqual([{ name: "A", value: "1" }]);
  });

  it("--target picks a stage by case-insensitive name; an unknown target is an error naming the stages", () => {
    expect(runs(plan(text, { target: "UNRELATED" }).steps).map((s) => s.run!.argv[2])).toEqual([
      "echo unrelated",
    ]);
    expect(() => plan(text, { target: "nope" })).toThrow(
      /target stage "nope" could not be found; stages are: base/,
    );
  });

  it("WORKDIR resolves relative to the previous one and expands ENV", () => {
    const result = plan("FROM x\nWORKDIR /a\nWORKDIR b\nENV D=c\nWORKDIR $D\nRUN pwd\n");
    expect(runs(result.steps)[0]!.run!.workdir).toBe("/a/b/c");
    expect(runs(plan("FROM x\nRUN pwd\n").steps)[0]!.run!.workdir).toBeNull();
  });

  it("the first FROM may be preceded only by ARG", () => {
    expect(() => plan("ENV A=1\nFROM x\n")).toThrow(/line 1: ENV comes before the first FROM/);
  });
});

describe("RUN forms and skipped instructions", () => {
  it("shell form uses the SHELL in force; exec form runs without a shell", () => {
    const steps = runs(
      plan(
        'FROM x\nRUN echo 1\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nRUN echo 2\nRUN ["echo", "$HOME"]\n',
      ).steps,
    );
    expect(steps.map((s) => [s.run!.form, ...s.run!.argv])).toEqual([
      ["shell", "/bin/sh", "-c", "echo 1"],
      ["shell", "/bin/bash", "-o", "pipefail", "-c", "echo 2"],
      ["exec", "echo", "$HOME"],
    ]);
  });

  it("heredocs: a bare body runs as a shell script, <<- strips tabs, #! runs as its own script, others go to the shell", () => {
    const text = [
      "FROM x",
      "RUN <<EOF",
      "echo one",
      "echo two",
      "EOF",
      "RUN <<-EOT",
      "\techo tabbed",
      "\tEOT",
      "RUN <<EOF",
      "#!/usr/bin/env bash",
      "echo script",
      "EOF",
      "RUN cat <<EOF > /tmp/out",
      "hello $HOME",
      "EOF",
      "",
    ].join("\n");
    const steps = runs(plan(text).steps);
    expect(steps[0]!.run!.argv).toEqual(["/bin/sh", "-c", "echo one\necho two\n"]);
    expect(steps[1]!.run!.argv).toEqual(["/bin/sh", "-c", "echo tabbed\n"]);
    expect(steps[2]!.run!.form).toBe("heredoc-script");
    expect(steps[2]!.run!.script).toEqual({ name: "EOF", content: "#!/usr/bin/env bash\necho script\n" });
    expect(steps[3]!.run!.argv).toEqual(["/bin/sh", "-c", "cat <<EOF > /tmp/out\nhello $HOME\nEOF"]);
  });

  it("a quoted COPY heredoc delimiter turns expansion off; an unquoted one expands (and can fail)", () => {
    expect(() => plan("FROM x\nCOPY <<'EOF' /a\n${\nEOF\n")).not.toThrow();
    expect(() => plan("FROM x\nCOPY <<EOF /a\n${\nEOF\n")).toThrow(/Dockerfile line 2: /);
  });

  it("instructions with no meaning in a running sandbox are skipped with the reason", () => {
    const text = [
      "FROM ubuntu:24.04",
      "COPY . /app",
      "USER app",
      "EXPOSE 80",
      "VOLUME /data",
      "LABEL a=b",
      "STOPSIGNAL SIGTERM",
      'CMD ["x"]',
      "ENTRYPOINT x",
      "HEALTHCHECK CMD true",
      "ONBUILD RUN x",
      "RUN --mount=type=cache,target=/root/.cache --mount=type=secret,id=npm --network=none true",
      "",
    ].join("\n");
    const steps = plan(text).steps;
    expect(steps.slice(0, 11).map((s) => s.action)).toEqual(Array(11).fill("skipped"));
    expect(steps[0]!.notes[0]).toMatch(/base image ubuntu:24.04 is not re-created/);
    expect(steps[1]!.notes[0]).toMatch(/in the checkout already/);
    expect(steps[2]!.notes[0]).toMatch(/USER app is not switched/);
    expect(steps[11]!.notes).toEqual([
      "--mount=type=cache at /root/.cache runs without the cache",
      "--mount=type=secret (id npm) is not provided here; the step runs without it",
      "--network=none is not applied; the step uses the sandbox's own network",
    ]);
  });

  it("step digests chain: changing an earlier step changes every later digest", () => {
    const a = plan("FROM x\nENV A=1\nRUN one\nRUN two\n").steps.map((s) => s.digest);
    const b = plan("FROM x\nENV A=2\nRUN one\nRUN two\n").steps.map((s) => s.digest);
    expect(a[0]).toBe(b[0]);
    expect(a.slice(1).every((digest, i) => digest !== b[i + 1])).toBe(true);
  });
});

describe("the escape directive", () => {
  it("a backtick escape directive makes ` the continuation and escape character, leaving \\ literal", () => {
    const text =
      '# escape=`\nFROM mcr.microsoft.com/windows/servercore\nENV P="C:\\path\\to `\n  more"\nENV Q=`$HOME\nRUN echo `\n  done\n';
    const result = plan(text);
    expect(result.environment).toEqual([
      { name: "P", value: "C:\\path\\to   more" },
      { name: "Q", value: "$HOME" },
    ]);
    expect(runs(result.steps)[0]!.run!.argv[2]).toBe("echo   done");
  });
});

describe("WORKDIR", () => {
  it("resolves as posix.resolve from the previous WORKDIR (or /), for any mix of segments (property)", () => {
    const segment = fc.constantFrom("a", "b", ".", "..", "", "c.d", "..e");
    const path = fc
      .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean())
      .map(([absolute, parts, slash]) => `${absolute ? "/" : ""}${parts.join("/")}${slash ? "/" : ""}`)
      .filter((p) => p !== "");
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 5 }), (values) => {
        let current: string | null = null;
        for (const value of values) {
          const expected = posix.resolve(current ?? "/", value);
          current = resolveWorkdir(current, value);
          expect(current).toBe(expected);
        }
      }),
    );
  });
});
