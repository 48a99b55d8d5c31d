// Row 6: installing a ~500 KB plugin from a local registry (over loopback HTTP), integrity and
// ed25519 signature checked, staged and renamed into place, recorded in the store.
// Baseline: `npm install` of the same tarball from a file. Target: ≤ 200 ms.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishDocument } from "@airlock/sdk/build";
import { generateKeyPair, integrityOf, signIntegrity } from "@airlock/sdk/signing";
import { createHost } from "../../host/src/host.ts";
import { startRegistry } from "../../registry/src/index.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

function npmInstallMs(tarballPath: string, iterations: number): number[] {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const dir = mkdtempSync(join(tmpdir(), "airlock-bench-npm-"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "npm-baseline", version: "1.0.0", private: true }),
    );
    try {
      const t0 = process.hrtime.bigint();
      execFileSync(
        "npm",
        [
          "install",
          tarballPath,
          "--no-save",
          "--offline",
          "--no-audit",
          "--no-fund",
          "--ignore-scripts",
          "--loglevel=error",
        ],
        { cwd: dir, stdio: "ignore" },
      );
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return samples;
}

export async function install(quick: boolean): Promise<Row[]> {
  const plugin = await buildBenchPlugin("bench500", "1.0.0", 500);
  const keys = generateKeyPair();
  const regDir = mkdtempSync(join(tmpdir(), "airlock-bench-registry-"));
  const hostDir = mkdtempSync(join(tmpdir(), "airlock-bench-install-"));
  const registry = await startRegistry({ dataDir: regDir, port: 0 });
  const host = await createHost({
    dataDir: hostDir,
    sandbox: { mode: "in-process" },
    registryUrl: registry.url,
    trust: { keys: [keys.publicKeyPem] },
  });
  try {
    const { token } = registry.storage.createToken("bench");
    const doc = publishDocument(plugin.tarball, plugin.manifest, [
      signIntegrity(integrityOf(plugin.tarball), keys.privateKeyPem),
    ]);
    const res = await fetch(`${registry.url}/${plugin.manifest.namespace}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(doc),
    });
    if (!res.ok) throw new Error(`publish failed: ${res.status} ${await res.text()}`);

    const n = quick ? 2 : 20;
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await host.plugins.install("bench500@^1.0.0");
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await host.plugins.uninstall("bench500", { purge: true });
    }
    const s = summarize(samples);
    const npm = summarize(npmInstallMs(plugin.tarballPath, quick ? 1 : 5));
    return [
      {
        id: "6",
        what: `install ${Math.round(plugin.tarball.length / 1024)} KB tarball (${Math.round(plugin.bundleSize / 1024)} KB bundle) from local registry, signed`,
        unit: "ms",
        p50: s.p50,
        p90: s.p90,
        baseline: { what: "npm install of the same tarball file", p50: npm.p50 },
        ratio: s.p50 / npm.p50,
        target: "≤ 200 ms",
        met: s.p50 <= 200,
      },
    ];
  } finally {
    await host.close();
    await registry.close();
    rmSync(regDir, { recursive: true, force: true });
    rmSync(hostDir, { recursive: true, force: true });
  }
}
