// The agent's account renumbered for a Docker box (pure): the image's /etc/passwd and /etc/group give `agent` uid
// and gid 1000; a box runs as a host uid of its own (--sandbox-uids), so its copy of the files gives `agent` that
// uid and gid instead, and `id -un`, `whoami`, `~` and everything else that looks the user up still find the agent.
import { AGENT_GID, AGENT_HOME, AGENT_UID } from "../driver.js";

export interface AccountFiles {
  passwd: string;
  group: string;
}

/**
 * `text` (name:password:id:… lines) with the line whose id (field 2) is `from` given `to` there, and in field 3 (a
 * passwd line's group) when that is `group`; `found` says whether a line had the id.
 */
function renumberLine(
  text: string,
  from: number,
  to: number,
  group?: number,
): { text: string; found: boolean } {
  let found = false;
  const lines = text.split("\n").map((line) => {
    const fields = line.split(":");
    if (fields.length < 3 || fields[2] !== String(from)) return line;
    found = true;
    fields[2] = String(to);
    if (group !== undefined && fields[3] === String(group)) fields[3] = String(to);
    return fields.join(":");
  });
  return { text: lines.join("\n"), found };
}

/** `text` with `line` added on a line of its own. */
function append(text: string, line: string): string {
  return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`;
}

/**
 * The account files with the agent (uid AGENT_UID, group AGENT_GID) renumbered to `uid`, user and group. An image
 * of the operator's own without that account gets an `agent` entry for `uid` with home AGENT_HOME.
 */
export function renumberAgent(files: AccountFiles, uid: number): AccountFiles {
  const passwd = renumberLine(files.passwd, AGENT_UID, uid, AGENT_GID);
  const group = renumberLine(files.group, AGENT_GID, uid);
  return {
    passwd: passwd.found
      ? passwd.text
      : append(files.passwd, `agent:x:${uid}:${uid}:Baton agent:${AGENT_HOME}:/bin/bash`),
    group: group.found ? group.text : append(files.group, `agent:x:${uid}:`),
  };
}
