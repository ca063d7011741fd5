// The named rule sets (presets) the lobby's forms offer, by variant: the server's own list
// (service/rules/presets.py; a test keeps the two equal). Each names what the rule fields show
// when left empty: its game's target and knock limit (null: Oklahoma's, by the upcard).
import { el } from "./ui.js";

export const PRESETS = [
  { name: "gin-rami", variant: "gin-rami", label: "Gin rami (the defaults)", target_score: 100, knock_limit: 10 },
  { name: "eaai", variant: "gin-rami", label: "EAAI challenge", target_score: 100, knock_limit: 10 },
  { name: "openspiel", variant: "gin-rami", label: "OpenSpiel", target_score: 100, knock_limit: 10 },
  { name: "standard", variant: "gin-rami", label: "Standard (box and game bonuses)", target_score: 100, knock_limit: 10 },
  { name: "oklahoma", variant: "gin-rami", label: "Oklahoma (knock limit by the upcard)", target_score: 150, knock_limit: null },
  { name: "hollywood", variant: "gin-rami", label: "Hollywood (three games at once)", target_score: 100, knock_limit: 10 },
  { name: "box-gin", variant: "three-hand", label: "Box gin (the defaults)", target_score: 100, knock_limit: 10 },
];

/** The preset named ``name``, or undefined ("" is none). */
export function preset(name) {
  return PRESETS.find((p) => p.name === name);
}

/**
 * Fill ``select`` with "none" and the presets of ``variant``; the one chosen before stays chosen if
 * it is one of them.
 */
export function fillPresets(select, variant) {
  const kept = select.value;
  select.replaceChildren(el("option", { value: "", text: "none (the options below)" }));
  for (const p of PRESETS.filter((q) => q.variant === variant)) {
    select.append(el("option", { value: p.name, text: `${p.label}: ${p.name}` }));
  }
  select.value = preset(kept) && preset(kept).variant === variant ? kept : "";
}
