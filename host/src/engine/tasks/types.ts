// The library API of long-running calls run as tasks (AirlockHost.tasks): start a call as a
// task, read it, wait for it, list, cancel. Surfaces (the MCP server's tasks utility and tasks
// extension) map these onto their wire shapes; they never touch the task rows themselves.
// Invariants: every operation takes the agent and sees only that agent's tasks (another agent
// gets null, never a hint that the id exists); a view is what the store holds at that moment,
// so any replica sharing the store answers the same. The types are declared in contracts/tasks.ts
// (contracts import nothing above them); engine/tasks/ implements them.
export type {
  HostTasks,
  TaskSettings,
  TaskStartOptions,
  TaskStatus,
  TaskView,
} from "../../contracts/tasks.ts";
