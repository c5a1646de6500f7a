// The pull request's disclosure, made where the evidence is: `baton disclose <repo> --json` run in the task's
// sandbox (its handoff, Dockerfile state, startup evidence and the proxy's refusals live there), with the checks
// the agent reported. A repository never activated there gets the renderer's own "not activated" disclosure;
// any other failure a short one saying the disclosure could not be made. Either way a draft.
import { z } from "zod";
import type { ReportedCheck } from "../../../../agent-tools/index.js";
import { renderDisclosure } from "../../../../disclosure/index.js";
import type { SandboxCommands } from "./run-in-sandbox.js";

const DisclosureSchema = z.object({
  repository: z.string(),
  draft: z.boolean(),
  draftReasons: z.array(z.string()),
  markdown: z.string(),
});
export type SandboxDisclosure = z.infer<typeof DisclosureSchema>;

/** `--check` values as `baton disclose` parses them (checks.ts): `<name>=<result>[:<note>]`. */
export function checkFlags(checks: readonly ReportedCheck[]): string[] {
  return checks.flatMap((c) => ["--check", `${c.name}=${c.result}${c.note ? `:${c.note}` : ""}`]);
}

const NOT_ACTIVATED = /was not activated in this sandbox/;

export async function discloseInSandbox(
  commands: SandboxCommands,
  input: { repo: string; checks: readonly ReportedCheck[]; signal: AbortSignal; timeoutMs: number },
): Promise<SandboxDisclosure> {
  const result = await commands.run(
    [...commands.baton, "disclose", input.repo, "--json", ...checkFlags(input.checks)],
    { signal: input.signal, timeoutMs: input.timeoutMs },
  );
  if (result.exitCode === 0) {
    const parsed = DisclosureSchema.safeParse(parseJson(result.stdout));
    if (parsed.success) return parsed.data;
  }
  if (NOT_ACTIVATED.test(result.stderr)) return notActivated(input.repo, input.checks);
  const said = result.stderr.trim().split("\n").at(-1)?.slice(0, 300) || `exit ${result.exitCode}`;
  return unavailable(input.repo, said);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The renderer's disclosure for a sandbox with no handoff: it says so and asks for a draft. */
export function notActivated(repository: string, checks: readonly ReportedCheck[]): SandboxDisclosure {
  return renderDisclosure({
    repository,
    handoff: null,
    dockerfile: null,
    environmentConflicts: [],
    evidence: null,
    evidenceProblem: "the repository was not activated in this sandbox",
    checks: checks.map((c) => ({ name: c.name, result: c.result, note: c.note ?? null })),
    agentInstructions: [],
  });
}

export function unavailable(repository: string, problem: string): SandboxDisclosure {
  const reason = `the disclosure could not be made (\`baton disclose\` failed: ${problem.replace(/\s+/g, " ")})`;
  return {
    repository,
    draft: true,
    draftReasons: [reason],
    markdown: `## Environment disclosure: ${repository}\n\n**Draft:** ${reason}.\n`,
  };
}
