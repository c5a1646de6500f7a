// The tracker organisation the Linear tests run against, served by the loopback fake (test/helpers/fake-tracker.ts:
// no tracker is reachable from this machine): Acme's organisation with its members, the OAuth app's own user and
// a spread of issues (mine, unassigned, someone else's, closed, started), and another organisation beside it.
import { type FakeIssue, FakeTracker } from "../../helpers/fake-tracker.js";

export const CLIENT = { id: "baton-client-id", secret: "canary-linear-client-secret-7c1d0e" };
export const PUBLIC_URL = "https://baton.example.test";
export const REDIRECT_URI = `${PUBLIC_URL}/install/tracker/callback`;

export const ORG = {
  acme: { id: "org_acme", name: "Acme Linear" },
  other: { id: "org_other", name: "Other Co" },
};
export const USERS = {
  dev: "usr_dev",
  olive: "usr_olive",
  zed: "usr_zed",
  app: "usr_baton_app",
  stranger: "usr_stranger",
  otherApp: "usr_baton_app_other",
} as const;

export const issues = (): FakeIssue[] => [
  {
    id: "iss_1",
    identifier: "LIN-1",
    title: "Login page shows a blank screen",
    description: "Since the deploy.",
    organizationId: ORG.acme.id,
    stateType: "unstarted",
    assigneeId: USERS.dev,
  },
  {
    id: "iss_2",
    identifier: "LIN-2",
    title: "Add rate limiting docs",
    organizationId: ORG.acme.id,
    stateType: "backlog",
    assigneeId: null,
  },
  {
    id: "iss_3",
    identifier: "LIN-3",
    title: "Someone else's login bug",
    organizationId: ORG.acme.id,
    stateType: "unstarted",
    assigneeId: USERS.zed,
  },
  {
    id: "iss_4",
    identifier: "LIN-4",
    title: "Closed login issue",
    organizationId: ORG.acme.id,
    stateType: "completed",
    assigneeId: USERS.dev,
  },
  {
    id: "iss_5",
    identifier: "LIN-5",
    title: "Started LOGIN rework",
    organizationId: ORG.acme.id,
    stateType: "started",
    assigneeId: null,
  },
  {
    id: "iss_6",
    identifier: "LIN-6",
    title: "Cancelled idea",
    organizationId: ORG.acme.id,
    stateType: "canceled",
    assigneeId: null,
  },
  {
    id: "iss_o1",
    identifier: "OTH-1",
    title: "Other org's login issue",
    organizationId: ORG.other.id,
    stateType: "unstarted",
    assigneeId: null,
  },
];

export function createFakeLinear(): FakeTracker {
  return new FakeTracker({
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    redirectUris: [REDIRECT_URI],
    organizations: [ORG.acme, ORG.other],
    users: [
      { id: USERS.dev, name: "Dev Eloper", organizationId: ORG.acme.id },
      { id: USERS.olive, name: "Olive Owner", organizationId: ORG.acme.id },
      { id: USERS.zed, name: "Zed", organizationId: ORG.acme.id },
      { id: USERS.app, name: "Baton", organizationId: ORG.acme.id, app: true },
      { id: USERS.stranger, name: "Stranger", organizationId: ORG.other.id },
      { id: USERS.otherApp, name: "Baton", organizationId: ORG.other.id, app: true },
    ],
    issues: issues(),
  });
}
