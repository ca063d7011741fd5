// The replay's audit panel: audit.js re-derives, in this browser, every deck and cut of a game's
// export from its revealed seed and checks the seed against the commitment published at creation.
// It audits the server's copy of the game replayed, or any export file picked or dropped here: a
// file is read by this page alone, and nothing of it is sent anywhere.
import * as api from "./api.js";
import { el } from "./ui.js";

/** A game's log is a few hundred kilobytes: a file far larger is no export. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** A check as a list item: passed or failed, its name, what it found (a failed deal names its card). */
const checkItem = (c) => el("li", { class: c.passed ? "" : "error", "data-check": c.name, "data-passed": String(c.passed) },
  el("span", { class: "audit-mark", text: c.passed ? "✓ passed" : "✗ FAILED" }), ` ${c.name}: ${c.detail}`);

/** The checks as a report: a summary sentence, the failed checks in full, the passed ones folded away. */
function report(checks, about) {
  const failed = checks.filter((c) => !c.passed);
  const passed = checks.filter((c) => c.passed);
  const summary = failed.length ? `${failed.length} of ${checks.length} checks failed (${failed.map((c) => c.name).join(", ")})`
    : `All ${checks.length} checks passed`;
  const out = [el("p", { class: failed.length ? "error" : "", "data-ok": String(!failed.length), text: `${about}${summary}.` })];
  if (failed.length) out.push(el("ul", { class: "audit-checks" }, ...failed.map(checkItem)));
  if (passed.length) {
    out.push(el("details", { class: "audit-passed" }, el("summary", { text: `The ${passed.length} checks passed` }),
      el("ul", { class: "audit-checks" }, ...passed.map(checkItem))));
  }
  return out;
}

/** Audit an export's text into ``out`` (a live region), saying ``about`` what was audited. */
async function auditInto(out, text, about) {
  out.replaceChildren(el("p", { text: `${about}auditing…` }));
  try {
    const { auditExport } = await import("./audit.js");
    out.replaceChildren(...report(await auditExport(text), about));
  } catch (err) {
    out.replaceChildren(el("p", { class: "error", text: `${about}the audit could not run: ${err.message}` }));
  }
}

/** Read a file chosen or dropped and audit it; the report says which file it is about. */
async function auditFile(out, file) {
  const about = `${file.name}: `;
  if (file.size > MAX_FILE_BYTES) {
    out.replaceChildren(el("p", { class: "error", "data-ok": "false", text: `${about}${Math.round(file.size / 1048576)} MB is far more than a game's log.` }));
    return;
  }
  let text;
  try {
    text = await file.text();
  } catch (err) {
    out.replaceChildren(el("p", { class: "error", "data-ok": "false", text: `${about}the file could not be read: ${err.message}` }));
    return;
  }
  await auditInto(out, text, about);
}

/** Whether a drag carries files (a card dragged, or text, is none of this panel's business). */
const carriesFiles = (e) => Array.from((e.dataTransfer && e.dataTransfer.types) || []).includes("Files");

/** The panel: the server's copy of game ``gameId`` audited on request, and any export file picked or dropped. */
export function renderAuditPanel(body, gameId) {
  const button = el("button", { type: "button", id: "audit-run" }, "Audit this game in the browser");
  const serverReport = el("div", { id: "audit-report", role: "status" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      serverReport.replaceChildren(el("p", { text: "Fetching the game's log…" }));
      await auditInto(serverReport, await api.exportGame(gameId), "");
    } catch (err) {
      serverReport.replaceChildren(el("p", { class: "error", text: `The audit could not run: ${err.message}` }));
    } finally {
      button.disabled = false;
    }
  });

  const input = el("input", { type: "file", id: "audit-file", accept: ".ndjson,.jsonl,.json,.txt,application/x-ndjson,application/json,text/plain" });
  const fileReport = el("div", { id: "audit-file-report", role: "status" });
  input.addEventListener("change", () => {
    if (input.files && input.files[0]) auditFile(fileReport, input.files[0]);
  });
  const zone = el("div", { id: "audit-drop", class: "audit-drop" },
    el("label", { for: "audit-file", text: "Audit a log file" }), " ", input,
    el("p", { class: "muted", text: "Choose a game's export (GET /games/{id}/export, one JSON event a line), or drop it here. "
      + "The file is read and audited in this browser: nothing is uploaded." }));
  zone.addEventListener("dragover", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    zone.classList.remove("over");
    const file = e.dataTransfer.files[0];
    if (file) auditFile(fileReport, file);
  });
  // a file dropped beside the zone would make the browser leave the replay to show it
  for (const type of ["dragover", "drop"]) {
    document.addEventListener(type, (e) => { if (carriesFiles(e) && !zone.contains(e.target)) e.preventDefault(); });
  }

  body.replaceChildren(
    el("p", { text: "Check that every deal came from the seed the server committed to before the game began, without trusting the server." }),
    el("p", {}, button, " ", el("a", { class: "button", id: "export-link", href: `/games/${encodeURIComponent(gameId)}/export`,
      download: `${gameId}.ndjson`, text: "Download the game's log (NDJSON)" })),
    serverReport, zone, fileReport);
}
