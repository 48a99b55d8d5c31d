// Runs the shared sandbox conformance suite against the in-process mode.
import { defineSandboxSuite } from "./sandbox-suite.ts";

defineSandboxSuite("in-process");
