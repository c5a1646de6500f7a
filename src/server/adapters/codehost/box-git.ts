// Where a sandbox box reaches the local code host's git route (surfaces/git/git-http.ts serves it) and how git in
// the box authenticates there: the sandbox drivers hand these to a box, the route reads the same base path.

export const CODEHOST_GIT_BASE_PATH = "/codehost/v1/git";
/** `http://<ops reach>/codehost/v1/git/<owner>/<name>.git`: where a box clones `repo` from. */
export function boxGitUrl(opsReach: string, repo: string): string {
  return `http://${opsReach}${CODEHOST_GIT_BASE_PATH}/${repo}.git`;
}

/**
 * The variables that let git in a box authenticate to the code host with the lease without writing it into a
 * remote URL (and so into `.git/config`): an `http.<base>.extraHeader` through GIT_CONFIG_COUNT.
 */
export function boxGitEnvironment(opsReach: string, lease: string): Record<string, string> {
  const basic = Buffer.from(`baton:${lease}`).toString("base64");
  return {
    BATON_CODEHOST_GIT_BASE: `http://${opsReach}${CODEHOST_GIT_BASE_PATH}/`,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: `http.http://${opsReach}${CODEHOST_GIT_BASE_PATH}/.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
}
