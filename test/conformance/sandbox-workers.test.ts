// Runs the shared sandbox conformance suite against the workers mode.
import { defineSandboxSuite } from "./sandbox-suite.ts";

defineSandboxSuite("workers");
