// The shapes shared with `@airlock/sdk/testing`: the SDK restates them structurally (it may not
// import host/), so these re-exports are the single host-side reference for them.
export type {
  HostTestHarness,
  HostTestHarnessOptions,
  LoadedPlugin,
  SeedDocument,
  TestAuditEntry,
  TestCallOptions,
  TestEgressAllow,
  TestToolResult,
} from "@airlock/sdk/testing";
