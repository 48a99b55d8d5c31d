// Child process for tarball-crash.test.ts: installs a .tgz and, at the fault point named in
// argv, tells the parent where it is and waits to be SIGKILLed (a crash mid-install). With
// the point "none" it installs normally and reports the result (cross-process concurrency).
import { createPluginLifecycle } from "@airlock/host/engine/install/index.ts";
import { openStore } from "@airlock/host/state/store/index.ts";

const [dataDir, tarball, point] = process.argv.slice(2) as [
  string,
  string,
  "afterStaged" | "afterCommitted" | "none",
];
const store = await openStore({ kind: "sqlite", dataDir });
const hang = (where: string) => async (): Promise<void> => {
  process.send?.({ at: point, where });
  // Never settles; the interval keeps the event loop alive (the IPC channel is unref'd) until
  // the parent SIGKILLs this process here.
  setInterval(() => undefined, 60_000);
  await new Promise<never>(() => undefined);
};
const lifecycle = createPluginLifecycle({
  store,
  dataDir,
  trust: { allowUnsigned: ["file"] },
  hostVersion: "0.1.0",
  supportedSdk: "^1.0.0",
  faults:
    point === "afterStaged"
      ? { afterStaged: hang("staged") }
      : point === "afterCommitted"
        ? { afterCommitted: hang("committed") }
        : {},
});
try {
  // Two children race; either may take the lock first, so the later may be the lower version.
  const report = await lifecycle.install(tarball, { allowDowngrade: point === "none" });
  process.send?.({ at: "finished", report });
} catch (err) {
  process.send?.({ at: "failed", code: (err as { code?: string }).code, message: String(err) });
} finally {
  await store.close();
}
