// SQLite: installed plugin versions (one row per namespace@version, the manifest as JSON) and
// which version of a namespace is active, and which was before it (rollback).
// Contract: the installed-plugins and activations part of the Store interface (store/types.ts);
// the installer (engine/install) decides what to write, this only stores it.
// Invariants: an activation change (activate, rollback) reads and writes in one BEGIN IMMEDIATE
// transaction, so two replicas' swaps never interleave; activating the active version again
// keeps its previous; rolling back swaps active and previous, and is null without a previous.
import type { DatabaseSync } from "node:sqlite";
import { nowIso } from "../shared.ts";
import type { InstalledPluginRecord, PluginActivation, Store } from "../types.ts";
import { immediate } from "./tx.ts";

type Row = Record<string, unknown>;

export type PluginVersionsPart = Pick<
  Store,
  | "putInstalledPlugin"
  | "getInstalledPlugin"
  | "listInstalledPlugins"
  | "deleteInstalledPlugin"
  | "activatePlugin"
  | "rollbackPlugin"
  | "getActivation"
  | "listActivations"
  | "deleteActivation"
>;

const plugin = (r: Row): InstalledPluginRecord => ({
  namespace: String(r.namespace),
  version: String(r.version),
  manifest: JSON.parse(String(r.manifest)),
  integrity: String(r.integrity),
  signer: r.signer === null ? null : String(r.signer),
  source: String(r.source),
  path: String(r.path),
  installedAt: String(r.installed_at),
});

const activation = (r: Row): PluginActivation => ({
  namespace: String(r.namespace),
  active: String(r.active),
  previous: r.previous === null ? null : String(r.previous),
  updatedAt: String(r.updated_at),
});

export function sqlitePluginVersions(db: DatabaseSync): PluginVersionsPart {
  const getActivationSync = (ns: string): PluginActivation | null => {
    const r = db.prepare("SELECT * FROM plugin_activations WHERE namespace = ?").get(ns) as Row | undefined;
    return r === undefined ? null : activation(r);
  };

  return {
    async putInstalledPlugin(p) {
      db.prepare(
        `INSERT INTO installed_plugins (namespace, version, manifest, integrity, signer, source, path, installed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (namespace, version) DO UPDATE SET manifest = excluded.manifest, integrity = excluded.integrity,
           signer = excluded.signer, source = excluded.source, path = excluded.path, installed_at = excluded.installed_at`,
      ).run(
        p.namespace,
        p.version,
        JSON.stringify(p.manifest),
        p.integrity,
        p.signer,
        p.source,
        p.path,
        p.installedAt,
      );
    },
    async getInstalledPlugin(namespace, version) {
      const r = db
        .prepare("SELECT * FROM installed_plugins WHERE namespace = ? AND version = ?")
        .get(namespace, version) as Row | undefined;
      return r === undefined ? null : plugin(r);
    },
    async listInstalledPlugins(namespace) {
      const rows =
        namespace === undefined
          ? db.prepare("SELECT * FROM installed_plugins ORDER BY namespace, installed_at").all()
          : db
              .prepare("SELECT * FROM installed_plugins WHERE namespace = ? ORDER BY installed_at")
              .all(namespace);
      return (rows as Row[]).map(plugin);
    },
    async deleteInstalledPlugin(namespace, version) {
      db.prepare("DELETE FROM installed_plugins WHERE namespace = ? AND version = ?").run(namespace, version);
    },
    async activatePlugin(namespace, version) {
      return immediate(db, () => {
        const cur = getActivationSync(namespace);
        const previous = cur === null ? null : cur.active === version ? cur.previous : cur.active;
        db.prepare(
          `INSERT INTO plugin_activations (namespace, active, previous, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (namespace) DO UPDATE SET active = excluded.active, previous = excluded.previous,
             updated_at = excluded.updated_at`,
        ).run(namespace, version, previous, nowIso());
        return getActivationSync(namespace)!;
      });
    },
    async rollbackPlugin(namespace) {
      return immediate(db, () => {
        const cur = getActivationSync(namespace);
        if (cur === null || cur.previous === null) return null;
        db.prepare(
          "UPDATE plugin_activations SET active = ?, previous = ?, updated_at = ? WHERE namespace = ?",
        ).run(cur.previous, cur.active, nowIso(), namespace);
        return getActivationSync(namespace)!;
      });
    },
    async getActivation(namespace) {
      return getActivationSync(namespace);
    },
    async listActivations() {
      return (db.prepare("SELECT * FROM plugin_activations ORDER BY namespace").all() as Row[]).map(
        activation,
      );
    },
    async deleteActivation(namespace) {
      db.prepare("DELETE FROM plugin_activations WHERE namespace = ?").run(namespace);
    },
  };
}
