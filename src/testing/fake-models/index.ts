// Fakes of vendors' model APIs for real coding agents, each playing a script (script.ts): the tests' and
// `npm run demo -- --agent <id>`'s.
export { type FakeAnthropicOptions, startFakeAnthropic } from "./anthropic.js";
export {
  type NamespacedFake,
  STANDALONE_FAKE,
  type StandaloneFakeSettings,
  startFakeInNamespace,
} from "./in-namespace.js";
export { type FakeOpenAIResponsesOptions, startFakeOpenAIResponses } from "./openai-responses.js";
export { SCRIPT_ENDED_TEXT, type ScriptStep, SIDE_CALL_TEXT, type ToolIntent } from "./script.js";
export type { FakeModel, FakeModelOptions, RecordedRequest } from "./server.js";
export { type MappedCall, mapIntent, NoToolForIntent, type OfferedTool } from "./tool-mapping.js";
