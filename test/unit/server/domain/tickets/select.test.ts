// Reference section 4, "GET .../tickets", rules 1 to 3, over plain issue rows (what the ports found; the query
// itself is the ports' search, tested with the local implementations).
import { describe, expect, it } from "vitest";
import { type IssueRow, selectTickets } from "../../../../../src/server/domain/tickets/select.js";

let seq = 0;
const issue = (over: Partial<IssueRow>): IssueRow => ({
  id: `i${++seq}`,
  source: "tracker",
  identifier: `ENG-${seq}`,
  repo: null,
  number: null,
  title: `issue ${seq}`,
  context: "",
  state: "open",
  assignee: null,
  isPullRequest: false,
  url: "https://tracker.invalid/x",
  inProgress: false,
  seq,
  ...over,
});
const gh = (over: Partial<IssueRow>) =>
  issue({ source: "codehost", repo: "acme/api", number: seq + 1, ...over });
const me = { trackerIdentity: "ann", codehostLogin: "ann-gh" };
const query = {
  repoFirst: null,
  enabledRepos: new Set(["acme/api", "acme/web"]),
  trackerConnected: true,
  codehostConnected: true,
};
const ids = (list: ReturnType<typeof selectTickets>) => list.map((s) => s.issue.title);

describe("ticket search", () => {
  it("order: the caller's own first, then the team's unassigned ones; tracker issues before code-host issues", () => {
    const list = selectTickets(
      [
        gh({ title: "gh unassigned" }),
        issue({ title: "trk unassigned" }),
        gh({ title: "gh mine", assignee: "ann-gh" }),
        issue({ title: "trk mine", assignee: "ann" }),
      ],
      me,
      query,
    );
    expect(ids(list)).toEqual(["trk mine", "trk unassigned", "gh mine", "gh unassigned"]);
    expect(list.map((s) => s.yours)).toEqual([true, false, true, false]);
  });

  it("at most 10 from each", () => {
    const many = [
      ...Array.from({ length: 12 }, () => issue({})),
      ...Array.from({ length: 12 }, () => gh({})),
    ];
    const list = selectTickets(many, me, query);
    expect(list.filter((s) => s.issue.source === "tracker")).toHaveLength(10);
    expect(list.filter((s) => s.issue.source === "codehost")).toHaveLength(10);
  });

  it.each([
    ["issues assigned to someone else", { assignee: "bob" }],
    ["closed", { state: "closed" as const }],
    ["already being worked on", { inProgress: true }],
    ["pull requests", { isPullRequest: true }],
  ])("left out: %s", (_rule, over) => {
    expect(selectTickets([issue(over), gh(over)], me, query)).toEqual([]);
  });

  it("tracker issues appear only when the caller's tracker account is linked", () => {
    expect(
      ids(
        selectTickets([issue({ title: "t" }), gh({ title: "g" })], { ...me, trackerIdentity: null }, query),
      ),
    ).toEqual(["g"]);
  });

  it("code-host issues appear only if the caller has a code-host account, and only from enabled repositories", () => {
    const rows = [gh({ title: "api" }), gh({ title: "other", repo: "acme/disabled" })];
    expect(ids(selectTickets(rows, me, query))).toEqual(["api"]);
    expect(selectTickets(rows, { ...me, codehostLogin: null }, query)).toEqual([]);
  });

  it("repo: an enabled repository is searched first; one that is not enabled is ignored", () => {
    const rows = [gh({ title: "api 1" }), gh({ title: "web 1", repo: "acme/web" })];
    expect(ids(selectTickets(rows, me, { ...query, repoFirst: "acme/web" }))).toEqual(["web 1", "api 1"]);
    expect(ids(selectTickets(rows, me, { ...query, repoFirst: "acme/nope" }))).toEqual(["api 1", "web 1"]);
  });

  it("nothing from a tracker or code host that is not connected", () => {
    expect(
      selectTickets([issue({}), gh({})], me, { ...query, trackerConnected: false, codehostConnected: false }),
    ).toEqual([]);
  });
});
