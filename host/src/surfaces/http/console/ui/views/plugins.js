// Plugins: what is installed with its signature and trust status; install from the registry
// (registry.js: search, pick a version) or by uploading a .tgz (with progress), what it changes
// shown before confirming either way; upgrade from the registry with the same diff;
// roll back (offered with the right word: an older or a newer version) and uninstall (keep or
// purge), each confirmed after seeing what it does.
import { useState } from "preact/hooks";
import { api, upload } from "../api.js";
import { LoadError, useResource } from "../common.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";
import { compareVersions } from "../versions.js";
import { DiffView } from "./diff.js";
import { RegistryInstall, RegistryUpgrade } from "./registry.js";

function Trust({ plugin }) {
  return plugin.signer
    ? html`<span class="badge ok">signed</span> by key <code>${plugin.signer}</code>`
    : html`<span class="badge warn">unsigned</span> installed with the operator's permission`;
}

function Progress({ value, label }) {
  return html`<div class="progress"><label>${label} <progress max="100" value=${Math.round(value * 100)}>${Math.round(value * 100)}%</progress> ${Math.round(value * 100)}%</label></div>`;
}

function InstallForms({ onInstalled }) {
  const { run } = useFeedback();
  const [file, setFile] = useState(null);
  // Bumped after an install so the file input is emptied too (its DOM value is not state).
  const [fileKey, setFileKey] = useState(0);
  const [progress, setProgress] = useState(null);
  const [preview, setPreview] = useState(null);
  const readFile = (e) => {
    e.preventDefault();
    if (file === null) return;
    run(`Read ${file.name}`, async () => {
      setProgress({ label: "Uploading for a preview", value: 0 });
      const diff = await upload("/api/plugins/preview", file, (v) =>
        setProgress({ label: "Uploading for a preview", value: v }),
      );
      setProgress(null);
      setPreview(diff);
      return `${file.name} read: ${diff.namespace} ${diff.to}. Check what it changes, then confirm.`;
    });
  };
  const installFile = () =>
    run(`Install ${file.name}`, async () => {
      setPreview(null);
      setProgress({ label: "Installing", value: 0 });
      const query = `allowUnsigned=true&source=${encodeURIComponent(`upload:${file.name}`)}${preview && preview.from !== null && compareVersions(preview.to, preview.from) <= 0 ? "&allowDowngrade=true" : ""}`;
      try {
        const r = await upload(`/api/plugins?${query}`, file, (v) =>
          setProgress({ label: "Installing", value: v }),
        );
        setFile(null);
        setFileKey((k) => k + 1);
        await onInstalled();
        return `Installed ${r.namespace} ${r.version}${r.previous ? ` (was ${r.previous})` : ""}.`;
      } finally {
        setProgress(null);
      }
    });
  return html`<div class="grid2">
    <${RegistryInstall} onInstalled=${onInstalled} />
    <form class="card" onSubmit=${readFile} aria-labelledby="from-file">
      <h2 id="from-file">Upload a .tgz</h2>
      <label for="pkg-file">Plugin tarball</label>
      <p class="hint" id="file-hint">Made by <code>airlock-plugin pack</code>. An upload carries no signature: installing it is your decision.</p>
      <input key=${fileKey} id="pkg-file" type="file" accept=".tgz,application/gzip" aria-describedby="file-hint" onChange=${(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
      <button type="submit" class="primary" disabled=${file === null}>Preview install</button>
      ${progress && html`<${Progress} value=${progress.value} label=${progress.label} />`}
    </form>
    ${
      preview &&
      html`<${Confirm} title=${`Install ${preview.namespace} ${preview.to}?`} confirmLabel="Install" onConfirm=${installFile} onCancel=${() => setPreview(null)}>
        <p>${preview.description}</p>
        <${DiffView} diff=${preview} />
        ${preview.from !== null && compareVersions(preview.to, preview.from) <= 0 && html`<p class="warn">This is not newer than the active ${preview.from}: it installs as a downgrade.</p>`}
        <p class="warn">Unsigned upload.</p>
      <//>`
    }
  </div>`;
}

function PluginCard({ plugin, onChanged }) {
  const { run } = useFeedback();
  const [dialog, setDialog] = useState(null);
  const [purge, setPurge] = useState(false);
  const older = plugin.previous !== null && compareVersions(plugin.previous, plugin.active) < 0;
  const askRollback = () =>
    run(`Compare ${plugin.namespace} ${plugin.active} with ${plugin.previous}`, async () => {
      const diff = await api(
        "GET",
        `/api/plugins/${plugin.namespace}/diff?to=${encodeURIComponent(plugin.previous)}`,
      );
      setDialog({ kind: "rollback", diff });
      return `Switching ${plugin.namespace} to ${plugin.previous} needs a confirmation.`;
    });
  const rollback = () =>
    run(`Switch ${plugin.namespace} to ${plugin.previous}`, async () => {
      const r = await api("POST", `/api/plugins/${plugin.namespace}/rollback`);
      setDialog(null);
      await onChanged();
      return `${r.namespace} ${r.version} is active again (was ${r.previous}).`;
    });
  const uninstall = () =>
    run(`Uninstall ${plugin.namespace}`, async () => {
      const r = await api("DELETE", `/api/plugins/${plugin.namespace}${purge ? "?purge=true" : ""}`);
      setDialog(null);
      await onChanged();
      const what = r.purged
        ? `purged ${r.purged.knowledgeDocuments} knowledge document(s) and ${r.purged.secrets.length} secret(s)`
        : `kept ${r.kept.knowledgeDocuments} knowledge document(s) and ${r.kept.secrets.length} secret(s)`;
      return `${r.namespace} uninstalled (${r.removedVersions.join(", ")}); ${what}.`;
    });
  return html`<li class="card plugin">
    <h3>${plugin.namespace} <span class="version">${plugin.active}</span></h3>
    <p class="meta"><${Trust} plugin=${plugin} /> · from <code>${plugin.source}</code></p>
    <p>${plugin.tools.length} tool(s): ${plugin.tools.map((t, i) => html`${i > 0 ? ", " : ""}<code>${t}</code>`)}</p>
    <p class="meta">Versions kept: ${plugin.versions.join(", ")}</p>
    <div class="actions">
      ${
        plugin.previous !== null &&
        html`<button type="button" onClick=${askRollback}>${older ? `Roll back to ${plugin.previous}` : `Switch back to ${plugin.previous} (newer)`}</button>`
      }
      ${
        plugin.source.startsWith("file:")
          ? html`<span class="meta">Installed from a file: upload its next .tgz to upgrade.</span>`
          : html`<button type="button" onClick=${() => setDialog({ kind: "upgrade" })}>Upgrade…</button>`
      }
      <button type="button" class="danger" onClick=${() => setDialog({ kind: "uninstall" })}>Uninstall…</button>
    </div>
    ${
      dialog?.kind === "rollback" &&
      html`<${Confirm} title=${`${older ? "Roll back" : "Switch"} ${plugin.namespace} to ${plugin.previous}?`} confirmLabel=${older ? "Roll back" : "Switch"} onConfirm=${rollback} onCancel=${() => setDialog(null)}>
        <${DiffView} diff=${dialog.diff} />
      <//>`
    }
    ${
      dialog?.kind === "upgrade" &&
      html`<${RegistryUpgrade} plugin=${plugin} onCancel=${() => setDialog(null)} onDone=${async () => {
        setDialog(null);
        await onChanged();
      }} />`
    }
    ${
      dialog?.kind === "uninstall" &&
      html`<${Confirm} title=${`Uninstall ${plugin.namespace}?`} confirmLabel=${purge ? "Uninstall and purge" : "Uninstall"} danger onConfirm=${uninstall} onCancel=${() => setDialog(null)}>
        <p>Removes every installed version (${plugin.versions.join(", ")}) and disables its ${plugin.tools.length} tool(s) for every agent.</p>
        <fieldset><legend>Its data</legend>
          <label class="level"><input type="radio" name="purge" checked=${!purge} onChange=${() => setPurge(false)} /> <span><strong>Keep</strong> its knowledge documents and the agents' secrets for it (a reinstall finds them)</span></label>
          <label class="level"><input type="radio" name="purge" checked=${purge} onChange=${() => setPurge(true)} /> <span><strong>Purge</strong>: also delete its knowledge documents and the secrets only it used</span></label>
        </fieldset>
      <//>`
    }
  </li>`;
}

export function PluginsScreen() {
  const [data, error, reload] = useResource("/api/plugins");
  return html`<h1>Plugins</h1>
    ${error && html`<${LoadError} error=${error} />`}
    ${data && data.plugins.length === 0 && html`<p class="empty">No plugin is installed yet.</p>`}
    <ul class="plugins">${data?.plugins.map((p) => html`<${PluginCard} key=${`${p.namespace}@${p.active}`} plugin=${p} onChanged=${reload} />`)}</ul>
    <${InstallForms} onInstalled=${reload} />`;
}
