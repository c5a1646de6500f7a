// What the image adds to the debootstrap tree: the agent user, the shell hooks that make every new shell read the
// activated environment, and the `baton` entry point. Part of the image's inputs (its tag changes with them).

export const SUITE = "bookworm";
export const VARIANT = "minbase";
/** On top of minbase (which already has bash, dash, coreutils, tar): git and TLS roots for the agent's
 * checkout, curl for startup scripts, libstdc++ for Node. */
export const PACKAGES = ["bash", "dash", "git", "ca-certificates", "curl", "libstdc++6"];

export const AGENT = { name: "agent", uid: 1000, gid: 1000, home: "/home/agent" };

/** Sourced by every new shell: login (/etc/profile.d), interactive bash (/etc/bash.bashrc), `bash -c` and bash
 * scripts (BASH_ENV), interactive sh (ENV). POSIX sh, quiet, and harmless when nothing is activated yet. */
export const SHELL_HOOK_PATH = "/etc/baton/shell-environment.sh";
export const SHELL_HOOK = `# Baton: every new shell reads the activated environment (see ~/.baton/environment.sh).
if [ -n "\${HOME:-}" ] && [ -r "$HOME/.baton/environment.sh" ]; then
  . "$HOME/.baton/environment.sh"
fi
`;

export const IMAGE_ENV = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: AGENT.home,
  USER: AGENT.name,
  LANG: "C.UTF-8",
  BASH_ENV: SHELL_HOOK_PATH,
  ENV: SHELL_HOOK_PATH,
};

/** Where this build of baton lives in the image; /usr/local/bin/baton points at its CLI. */
export const BATON_PREFIX = "/opt/baton";
export const BATON_BIN = `${BATON_PREFIX}/dist/src/cli/bin.js`;

/** Lines appended to files of the debootstrap tree, keyed by path inside the tree. */
export const APPENDS = {
  "etc/passwd": `${AGENT.name}:x:${AGENT.uid}:${AGENT.gid}:Baton agent:${AGENT.home}:/bin/bash\n`,
  "etc/group": `${AGENT.name}:x:${AGENT.gid}:\n`,
  "etc/shadow": `${AGENT.name}:!:19000:0:99999:7:::\n`,
  "etc/bash.bashrc": `\n. ${SHELL_HOOK_PATH}\n`,
};

/** Files written into the tree (path inside the tree → content). */
export const FILES = {
  [SHELL_HOOK_PATH.slice(1)]: SHELL_HOOK,
  "etc/profile.d/baton-environment.sh": `. ${SHELL_HOOK_PATH}\n`,
};
