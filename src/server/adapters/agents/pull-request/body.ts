// The pull request Baton opens for an agent's `open_pull_request`, from the disclosure and the agent's request.
// Pure. The body is the disclosure, then the agent's notes under their own heading when it gave any; everything
// passes the sanitiser with the sandbox's secrets; a draft when the agent asked for one or the disclosure says so.
import { PULL_REQUEST_BODY_CHARS } from "../port.js";

export const AGENT_NOTES_HEADING = "### Notes from the agent";
const CUT = "\n\n_[notes cut to fit the pull request]_\n";

export function composePullRequest(input: {
  disclosure: { markdown: string; draft: boolean };
  request: { body?: string | undefined; draft: boolean };
  clean: (text: string) => string;
}): { body: string; draft: boolean } {
  const disclosure = input.clean(input.disclosure.markdown);
  const notes = input.clean(input.request.body ?? "").trim();
  const draft = input.request.draft || input.disclosure.draft;
  if (notes === "") return { body: disclosure.slice(0, PULL_REQUEST_BODY_CHARS), draft };
  const head = `${disclosure.trimEnd()}\n\n${AGENT_NOTES_HEADING}\n\n`;
  const whole = `${head}${notes}\n`;
  if (whole.length <= PULL_REQUEST_BODY_CHARS) return { body: whole, draft };
  // The notes give way, never the disclosure.
  const room = PULL_REQUEST_BODY_CHARS - head.length - CUT.length;
  if (room <= 0) return { body: disclosure.slice(0, PULL_REQUEST_BODY_CHARS), draft };
  return { body: `${head}${notes.slice(0, room)}${CUT}`, draft };
}
