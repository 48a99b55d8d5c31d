// Installing and upgrading from the host's registry, or from another one named by URL: search by
// name, list the versions of the package picked, choose one, and see what it would change (the same diff an upload shows, read
// from the tarball the installer would fetch) before confirming. The install then asks for that
// exact version, so what is installed is what was shown.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";
import { compareVersions } from "../versions.js";
import { DiffView } from "./diff.js";

const older = (p) => p.from !== null && compareVersions(p.to, p.from) < 0;

/** The version picker of one package: a labelled select, newest first, the latest tag marked. */
function VersionSelect({ id, versions, value, onChange }) {
  return html`<select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
    ${versions.map(
      (v) =>
        html`<option value=${v.version}>${v.version}${v.latest ? " (latest)" : ""}${v.signatures === 0 ? " — unsigned" : ""}</option>`,
    )}
  </select>`;
}

function signedNote(preview) {
  return preview.signatures > 0
    ? html`<p><span class="badge ok">signed</span> ${preview.signatures} signature(s); the host checks them against its trusted keys when it installs.</p>`
    : html`<p class="warn">This version carries no signature: installing it needs your permission.</p>`;
}

/** The query string naming the registry picked (none: the host's own). */
const from = (registry) => (registry === "" ? "" : `registry=${encodeURIComponent(registry)}`);

export function RegistryInstall({ onInstalled }) {
  const { run } = useFeedback();
  const [query, setQuery] = useState("");
  // Another registry than the host's (--registry), named by URL; empty: the host's.
  const [registryField, setRegistryField] = useState("");
  const [registry, setRegistry] = useState("");
  const [found, setFound] = useState(null);
  const [pkg, setPkg] = useState(null);
  const [version, setVersion] = useState("");
  const [unsigned, setUnsigned] = useState(false);
  const [preview, setPreview] = useState(null);
  const search = (e) => {
    e.preventDefault();
    run(`Search the registry for "${query.trim()}"`, async () => {
      const named = registryField.trim();
      const r = await api(
        "GET",
        `/api/registry/search?q=${encodeURIComponent(query.trim())}${named === "" ? "" : `&${from(named)}`}`,
      );
      setRegistry(named);
      setFound(r);
      setPkg(null);
      return `${r.total} package(s) found in ${r.registry}.`;
    });
  };
  const pick = (name) =>
    run(`List the versions of ${name}`, async () => {
      const r = await api(
        "GET",
        `/api/registry/packages/${encodeURIComponent(name)}${registry === "" ? "" : `?${from(registry)}`}`,
      );
      setPkg(r);
      setVersion(r.versions[0]?.version ?? "");
      return `${name}: ${r.versions.length} version(s). Pick one, then preview it.`;
    });
  const askInstall = (e) => {
    e.preventDefault();
    run(`Read ${pkg.name} ${version}`, async () => {
      setPreview(
        await api("POST", "/api/registry/preview", {
          name: pkg.name,
          range: version,
          ...(registry === "" ? {} : { registry }),
        }),
      );
      return `${pkg.name} ${version} read: check what it changes, then confirm.`;
    });
  };
  const install = () =>
    run(`Install ${pkg.name}@${version}`, async () => {
      // Another registry is named in the spec itself: `<registry URL>/name@version`.
      const base = registry === "" ? "" : `${registry.replace(/\/+$/, "")}/`;
      const r = await api("POST", "/api/plugins", {
        spec: `${base}${pkg.name}@${version}`,
        ...(older(preview) ? { allowDowngrade: true } : {}),
        ...(unsigned ? { allowUnsigned: true } : {}),
      });
      setPreview(null);
      setPkg(null);
      setFound(null);
      await onInstalled();
      return `Installed ${r.namespace} ${r.version}${r.previous ? ` (was ${r.previous})` : ""} with ${r.tools.length} tool(s); enable them per agent.`;
    });
  return html`<section class="card" aria-labelledby="from-registry">
    <h2 id="from-registry">Install from the registry</h2>
    <form role="search" onSubmit=${search}>
      <label for="reg-url">Registry</label>
      <p class="hint" id="reg-url-hint">Empty: this host's registry (<code>--registry</code>, <code>AIRLOCK_REGISTRY_URL</code>). Or the URL of another one to search and install from.</p>
      <input id="reg-url" type="url" placeholder="https://registry.example.com" aria-describedby="reg-url-hint" value=${registryField} onInput=${(e) => setRegistryField(e.currentTarget.value)} />
      <label for="reg-q">Search by name</label>
      <div class="row">
        <input id="reg-q" type="search" maxlength="64" placeholder="e.g. weather (empty: every package)" value=${query} onInput=${(e) => setQuery(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </div>
    </form>
    ${
      found &&
      (found.packages.length === 0
        ? html`<p class="empty">No package matches.</p>`
        : html`<ul class="reg-hits" aria-label="Packages found">${found.packages.map(
            (p) => html`<li key=${p.name}>
              <button type="button" class="link" aria-pressed=${pkg?.name === p.name} onClick=${() => pick(p.name)}><strong>${p.name}</strong> ${p.latest}</button>
              ${p.installed !== null && html` <span class="badge">installed ${p.installed}</span>`}
              <div class="meta">${p.description}</div>
            </li>`,
          )}</ul>`)
    }
    ${
      pkg &&
      html`<form onSubmit=${askInstall} aria-label=${`Install ${pkg.name}`}>
        <label for="reg-version">Version of ${pkg.name}</label>
        <${VersionSelect} id="reg-version" versions=${pkg.versions} value=${version} onChange=${setVersion} />
        <label class="check"><input type="checkbox" checked=${unsigned} onChange=${(e) => setUnsigned(e.currentTarget.checked)} /> Allow an unsigned package or an unknown signer</label>
        <button type="submit" class="primary" disabled=${version === ""}>Preview install</button>
      </form>`
    }
    ${
      preview &&
      html`<${Confirm} title=${`Install ${preview.namespace} ${preview.to}?`} confirmLabel="Install" onConfirm=${install} onCancel=${() => setPreview(null)}>
        <p>${preview.description}</p>
        <${DiffView} diff=${preview} />
        ${older(preview) && html`<p class="warn">${preview.to} is older than the active ${preview.from}: it installs as a downgrade.</p>`}
        ${signedNote(preview)}
        <p class="meta">From ${preview.registry}</p>
      <//>`
    }
  </section>`;
}

/** The upgrade dialog of an installed plugin: pick a version from its registry, see the diff, confirm. */
export function RegistryUpgrade({ plugin, onDone, onCancel }) {
  const { run } = useFeedback();
  const [versions, setVersions] = useState(null);
  const [version, setVersion] = useState("");
  const [preview, setPreview] = useState(null);
  const load = () =>
    run(`List the versions of ${plugin.namespace}`, async () => {
      const r = await api("GET", `/api/registry/packages/${plugin.namespace}?upgrade=true`);
      setVersions(r.versions);
      setVersion(r.versions[0]?.version ?? "");
      return `${plugin.namespace}: ${r.versions.length} version(s) in ${r.registry}.`;
    });
  // Loads once, when the dialog opens.
  useEffect(() => {
    load().then((ok) => ok || onCancel());
  }, []);
  const show = () =>
    run(`Compare ${plugin.namespace} ${plugin.active} with ${version}`, async () => {
      setPreview(
        await api("POST", "/api/registry/preview", { name: plugin.namespace, range: version, upgrade: true }),
      );
      return `Upgrading ${plugin.namespace} to ${version} needs a confirmation.`;
    });
  const upgrade = () =>
    run(`Upgrade ${plugin.namespace} to ${version}`, async () => {
      const r = await api("POST", `/api/plugins/${plugin.namespace}/upgrade`, {
        range: version,
        ...(older(preview) ? { allowDowngrade: true } : {}),
      });
      await onDone();
      return r.previous === r.version
        ? `${r.namespace} ${r.version} was already active.`
        : `${r.namespace} upgraded to ${r.version} (was ${r.previous}).`;
    });
  if (preview !== null)
    return html`<${Confirm} title=${`Upgrade ${plugin.namespace} to ${preview.to}?`} confirmLabel="Upgrade" onConfirm=${upgrade} onCancel=${onCancel}>
      <${DiffView} diff=${preview} />
      ${older(preview) && html`<p class="warn">${preview.to} is older than the active ${preview.from}: this is a downgrade.</p>`}
      ${signedNote(preview)}
      <p class="meta">${plugin.active} stays installed for a rollback.</p>
    <//>`;
  return html`<${Confirm} title=${`Upgrade ${plugin.namespace}?`} confirmLabel="Show changes" onConfirm=${show} onCancel=${onCancel} busy=${versions === null || version === ""}>
    <p>Pick a version from the registry ${plugin.namespace} ${plugin.active} came from; what it changes is shown next.</p>
    <label for="up-version">Version</label>
    ${versions === null ? html`<p class="loading">Loading versions…</p>` : html`<${VersionSelect} id="up-version" versions=${versions} value=${version} onChange=${setVersion} />`}
  <//>`;
}
