// Dockerfile engine figures, each with a baseline measured in the same run:
// 1. plan a 2,000-instruction Dockerfile (parse + resolve + plan), against dockerfile-ast parsing the same text;
// 2. expand 100,000 words with the BuildKit lexer, against shell-quote's parse (which also substitutes $VARs);
// 3. per-step overhead of `apply` (a process group, timeout, sanitised tail and a record written per step)
//    against running the same commands in one bash process;
// 4. each hostile Dockerfile of fixtures/dockerfiles/hostile.mjs (refused naming its line, or planned), against
//    planning the realistic 2,000-instruction Dockerfile of (1).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DockerfileParser } from "dockerfile-ast";
import shellQuote from "shell-quote";
import { HOSTILE_DOCKERFILES } from "../fixtures/dockerfiles/hostile.mjs";
import { median, report, timeRuns } from "./lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { planDockerfile } = await import(join(root, "dist/src/dockerfile/plan.js"));
const { processWord } = await import(join(root, "dist/src/dockerfile/lexer.js"));
const { applyPlan } = await import(join(root, "dist/src/dockerfile/apply.js"));
const { createOutputSanitiser } = await import(join(root, "dist/src/dockerfile/sanitise.js"));
const { resolveSandboxPaths } = await import(join(root, "dist/src/config/sandbox.js"));

// 1. A realistic mix: mostly RUN (some with continuations and heredocs), ENV/ARG over a pool of 40 names,
// WORKDIR, COPY, LABEL; two stages.
function buildDockerfile(instructions) {
  const lines = ["# syntax=docker/dockerfile:1", "ARG BASE=ubuntu:24.04", "FROM $BASE AS build"];
  let count = 2;
  for (let i = 0; count < instructions; i++) {
    const v = `V${i % 40}`;
    const shapes = [
      `ENV ${v}="value ${i}" PATH=/opt/${i % 5}/bin:$PATH`,
      `RUN echo "$${v}" && make -C /src/${i} \\\n    install`,
      `ARG A${i % 40}=\${${v}:-fallback}-\${${v}%%x*}`,
      `RUN set -eux; \\\n    cd /tmp && tar -xzf pkg-${i}.tgz`,
      `WORKDIR /app/\${${v}//[ ]/_}`,
      "COPY --chown=app:app . /app",
      `RUN <<EOF\necho step ${i}\nEOF`,
      `LABEL org.example.step${i}="\${${v}}"`,
    ];
    if (i === Math.floor(instructions / 2)) lines.push("FROM build AS final");
    lines.push(shapes[i % shapes.length]);
    count++;
  }
  return `${lines.join("\n")}\n`;
}

const text = buildDockerfile(2000);
const ours = await timeRuns(() => planDockerfile(text, { baseEnv: { PATH: "/usr/bin:/bin" } }), {
  runs: 30,
  warmup: 3,
});
const ast = await timeRuns(() => DockerfileParser.parse(text), { runs: 30, warmup: 3 });
const astFigure = { label: "dockerfile-ast parse (baseline)", value: median(ast) };
report("dockerfile-ast parse of the same 2,000 instructions", astFigure.value, "ms");
report("plan a 2,000-instruction Dockerfile (median)", median(ours), "ms", astFigure);
const planFigure = { label: "planning 2,000 instructions", value: median(ours) };

// 2. 100,000 words of mixed forms against a small environment.
const env = new Map([
  ["HOME", "/home/agent"],
  ["VERSION", "1.2.3"],
  ["ARCH", "amd64"],
  ["EMPTY", ""],
]);
const forms = [
  "plain-word",
  "$HOME/bin",
  "${VERSION}",
  '"quoted ${ARCH} text"',
  "${MISSING:-default}",
  "${VERSION%.*}",
  "pre-${ARCH:+x}-post",
  "'single $HOME'",
  "${HOME#/home/}",
  "a\\ b",
];
const words = Array.from({ length: 100_000 }, (_, i) => forms[i % forms.length]);
const envObject = Object.fromEntries(env);
const lexRuns = await timeRuns(
  () => {
    for (const word of words) processWord(word, env);
  },
  { runs: 10, warmup: 2 },
);
const quoteRuns = await timeRuns(
  () => {
    for (const word of words) shellQuote.parse(word, envObject);
  },
  { runs: 10, warmup: 2 },
);
const quoteFigure = { label: "shell-quote", value: 100_000 / (median(quoteRuns) / 1000) };
report("shell-quote parse with env (baseline)", quoteFigure.value, "words/s");
report(
  "expand 100,000 words with the BuildKit lexer",
  100_000 / (median(lexRuns) / 1000),
  "words/s",
  quoteFigure,
);

// 3. Per-step overhead: 40 RUN steps of `true` through applyPlan vs `true; true; ...` in one bash.
const STEPS = 40;
const home = mkdtempSync(join(tmpdir(), "baton-bench-dockerfile-"));
try {
  const checkout = join(home, "checkout");
  mkdirSync(checkout);
  const paths = resolveSandboxPaths({ HOME: home });
  const stepsText = `FROM x\n${Array.from({ length: STEPS }, (_, i) => `RUN true ${i}`).join("\n")}\n`;
  const sanitiser = createOutputSanitiser([]);
  let version = 0;
  const applyRuns = await timeRuns(
    async () => {
      const plan = planDockerfile(stepsText, { baseEnv: { PATH: process.env.PATH } });
      version++;
      await applyPlan({
        plan,
        repository: "bench/dockerfile",
        versionId: `v${version}`,
        checkoutPath: checkout,
        paths,
        env: { PATH: process.env.PATH },
        stepTimeoutMs: 60_000,
        sanitiser,
      });
    },
    { runs: 5, warmup: 1 },
  );
  const script = Array.from({ length: STEPS }, (_, i) => `true ${i}`).join("; ");
  const bashRuns = await timeRuns(() => execFileSync("bash", ["-c", script]), { runs: 5, warmup: 1 });
  const bashFigure = { label: "one bash process", value: median(bashRuns) };
  report(`${STEPS} commands in one bash process (baseline)`, bashFigure.value, "ms");
  report(`${STEPS} RUN steps through apply`, median(applyRuns), "ms", bashFigure);
  report("apply overhead per RUN step", (median(applyRuns) - median(bashRuns)) / STEPS, "ms");
} finally {
  rmSync(home, { recursive: true, force: true });
}

// 4. Hostile input: every case must end (refused or planned) in well under a second.
console.log("hostile Dockerfiles (median of 5; refused naming the line unless marked planned):");
for (const hostile of HOSTILE_DOCKERFILES) {
  const text = hostile.text();
  let outcome = "";
  const runs = await timeRuns(
    () => {
      try {
        planDockerfile(text);
        outcome = "planned";
      } catch (error) {
        outcome = error.message.match(/^Dockerfile line \d+/)?.[0] ?? `unexpected: ${error.message}`;
      }
    },
    { runs: 5, warmup: 1 },
  );
  report(`  ${hostile.name.slice(0, 44)} (${outcome})`.slice(0, 58), median(runs), "ms", planFigure);
}
