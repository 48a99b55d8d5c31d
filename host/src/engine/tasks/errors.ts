// The error catalogue of long-running calls run as tasks (AIRLOCK_TASK_*). A failed task carries
// one of these as its code (MCP: a JSON-RPC error whose data names it); an unknown task is a
// protocol error of the MCP surface.
import { AirlockError } from "@airlock/sdk";
import { defineErrorCodes } from "@airlock/sdk/errors";

export const TASK_ERRORS = defineErrorCodes({
  AIRLOCK_TASK_NOT_FOUND: {
    status: 404,
    description:
      "No task with this id belongs to this agent (unknown, another agent's, or past its TTL and deleted).",
  },
  AIRLOCK_TASK_REPLICA_LOST: {
    status: 502,
    description:
      "The replica running the task stopped giving signs of life (killed, or cut off from the store) before the call finished, and the task could not be resumed elsewhere (its tool is not read-only, or it was already resumed tasks.resumeLimit times); the call may or may not have had effects: look its tool up in the audit before retrying.",
  },
  AIRLOCK_TASK_HOST_STOPPED: {
    status: 503,
    description: "The host running the task shut down before the call finished; start the task again.",
  },
  AIRLOCK_TASK_QUEUE_FAILED: {
    status: 503,
    description:
      "The task could not be handed to the job queue (PostgreSQL unreachable); nothing ran: try again.",
  },
  AIRLOCK_TASK_FAILED: {
    status: 500,
    description: "The host failed unexpectedly while running the task; its log has the details.",
  },
  AIRLOCK_TASK_CANCELLED: {
    status: 409,
    description: "The task was cancelled before it finished: it has no result (MCP tasks/result).",
  },
  AIRLOCK_TASK_TERMINAL: {
    status: 409,
    description:
      "tasks/cancel named a task that already completed, failed or was cancelled; its state stays as it is.",
  },
  AIRLOCK_TASK_SETTINGS_INVALID: {
    status: 500,
    description:
      "A task setting of the host options (ttlMs, wallMs, toolWallMs, pollIntervalMs, concurrency, resumeLimit) is not a positive integer (concurrency and resumeLimit may be 0).",
  },
  AIRLOCK_TASK_NOT_SUPPORTED: {
    status: 400,
    description:
      "A task was asked for a tool that does not declare longRunning; call it without a task (its result comes back on the request).",
  },
});

export type TaskErrorCode = keyof typeof TASK_ERRORS;

export function taskError(code: TaskErrorCode, message: string): AirlockError {
  return new AirlockError(code, message, { status: TASK_ERRORS[code].status });
}
