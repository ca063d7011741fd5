// Invitations: a link to a private seat asks the invited person's name and takes the seat (or says
// the seat is taken already); a creator waiting for guests is shown the links to send them.
import * as api from "./api.js";
import { inviteLink, invitesOf, saveSeat } from "./seats.js";
import { dealtByCreator, loadCreated, notRandomNote } from "./table-deal.js";
import { $, andList, gameId, state } from "./table-state.js";
import { defaultName, el, playerName } from "./ui.js";

/**
 * An invitation in the fragment: {seat, secret}, or null. The links the lobby and this page give
 * are #seat=1&secret=...; a link written by hand as the documentation once said, #invite=...
 * with no seat, gives seat null: the seat is the open invited one the secret opens.
 */
export function invitation() {
  const params = new URLSearchParams(location.hash.slice(1));
  const secret = params.get("secret") || params.get("invite");
  const seat = params.get("seat");
  if (!secret) return null;
  return { seat: seat !== null && /^[0-9]{1,3}$/.test(seat) ? Number(seat) : null, secret };
}

/** Claim the invited seat; without a seat number, try each open invited seat until one takes the secret. */
async function claimInvited(invite, typed) {
  const name = (seat) => typed || defaultName(seat);
  if (invite.seat !== null) return api.claimSeat(gameId, invite.seat, name(invite.seat), invite.secret);
  const { data: view } = await api.getGame(gameId, null);
  const open = (view.private_seats || []).filter((seat) => view.players[seat] === null);
  let refusal = new api.ApiError(403, { code: "invite_required", detail: "no open invited seat takes this invitation" });
  for (const seat of open) {
    try {
      return await api.claimSeat(gameId, seat, name(seat), invite.secret);
    } catch (err) {
      if (err.code !== "invite_required") throw err;
      refusal = err; // (a wrong secret changes nothing: the next seat is tried)
    }
  }
  throw refusal;
}

/** What an invitation is to, from the game's public view: its rules and who already sits there. */
function invitationContext(view) {
  const rules = view.variant === "three-hand" ? "box gin (three players)" : "gin rami (two players)";
  const seated = view.players.map((p, i) => (p ? playerName(view, i) : null)).filter(Boolean);
  const target = view.options && view.options.target_score ? `, a game to ${view.options.target_score}` : "";
  return `A game of ${rules}${target}, game ${view.game_id}.` +
    (seated.length ? ` Seated: ${andList(seated)}.` : "");
}

/** Whether the seat an invitation is to is taken already (without a seat: every invited seat is). */
function invitationSpent(invite, view) {
  if (invite.seat !== null) return invite.seat < view.players.length && view.players[invite.seat] !== null;
  return !(view.private_seats || []).some((seat) => view.players[seat] === null);
}

/** Ask the invited person's name and take the seat; resolves once the token is stored. */
function acceptInvitation(invite, view) {
  return new Promise((resolve) => {
    const remembered = localStorage.getItem("ginbox.name") || "";
    const name = el("input", { id: "invite-name", maxlength: "40", autocomplete: "nickname", value: remembered,
      placeholder: invite.seat === null ? "" : defaultName(invite.seat), "aria-describedby": "invite-name-help" });
    const error = el("p", { class: "error", role: "alert" });
    const form = el("form", { id: "invite-form", class: "knock-panel" },
      el("h2", { text: invite.seat === null ? "You are invited to this game" : `You are invited to seat ${invite.seat + 1} of this game` }),
      el("p", { id: "invite-context", text: invitationContext(view) }),
      // before the seat is taken, the invited person reads that its creator chose the deal
      dealtByCreator(view) ? el("p", { id: "invite-not-random", class: "error", text: notRandomNote(view) }) : null,
      el("label", { for: "invite-name", text: "Your name" }), " ", name, " ",
      el("button", { type: "submit", class: "primary" }, dealtByCreator(view) ? "Take the seat anyway" : "Take the seat"),
      el("p", { id: "invite-name-help", class: "muted", text: "Left empty, you sit as \u201cplayer\u201d and your seat's number." }),
      error);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const typed = name.value.trim();
      try {
        const { data } = await claimInvited(invite, typed);
        const chosen = data.view.players[data.seat] ? data.view.players[data.seat].name : typed || defaultName(data.seat);
        // only a name typed is this browser's name from now on: a default is not
        if (typed) localStorage.setItem("ginbox.name", typed);
        saveSeat(gameId, data.view.variant, data.seat, data.token, chosen);
        // the secret has done its work: it leaves the address bar (and the history)
        history.replaceState(null, "", `${location.pathname}#seat=${data.seat}`);
        form.remove();
        resolve();
      } catch (err) {
        error.textContent = err.code === "invite_required" ? "This invitation is not valid for that seat."
          : err.code === "seat_taken" ? "Someone has already taken that seat." : `Could not take the seat: ${err.message}`;
      }
    });
    $("#main").prepend(form);
    name.focus();
  });
}

/** The creator's links for the open invited seats, while the game waits for its guests; null otherwise. */
export function renderInvites(view) {
  const invites = invitesOf(gameId);
  const open = Object.entries(invites).filter(([seat]) => view.players[Number(seat)] === null);
  if (view.status !== "waiting" || !open.length || state.mode !== "play") return null;
  const list = el("ul", { id: "table-invites" });
  for (const [seat, secret] of open) {
    const link = inviteLink(gameId, seat, secret);
    const input = el("input", { type: "text", readonly: "", size: "50", id: `table-invite-${seat}`, value: link });
    // as in the lobby: one press puts the link on the clipboard (or selects it, where that is not allowed)
    const copy = el("button", { type: "button", class: "copy", "data-key": `copy-invite:${seat}`, text: "Copy",
      onclick: async () => {
        input.select();
        try { await navigator.clipboard.writeText(link); copy.textContent = "Copied"; } catch { copy.textContent = "Select and copy"; }
      } });
    list.append(el("li", {}, el("label", { for: `table-invite-${seat}`, text: `Invitation to seat ${Number(seat) + 1}: ` }), input, " ", copy));
  }
  return el("div", { class: "knock-panel" }, el("h3", { text: "Waiting for your guests: send them these links" }), list);
}

/**
 * The table opened on an invitation this browser holds no seat for: the game is looked up, then
 * either the invitation is said to be spent (resolves true: the table is not opened) or the
 * invited person's name is asked and the seat taken (resolves false, as when the game cannot be
 * looked up: the table then says why).
 */
export async function answerInvitation(invite) {
  $("#connection").textContent = "not joined";
  // the game is looked up first: a link to a game this server does not hold asks for no name
  let publicView = null;
  try {
    publicView = (await api.getGame(gameId, null)).data;
  } catch { /* the table's first look says why the game cannot be shown */ }
  if (publicView && invitationSpent(invite, publicView)) {
    // nobody can sit there any more: no name is asked, the game may be watched
    $("#main").prepend(el("div", { id: "invite-taken", class: "knock-panel", role: "alert" },
      el("p", { text: invite.seat === null ? "Every seat this invitation could open is already taken."
        : `Someone has already taken seat ${invite.seat + 1} of this game, so this invitation can no longer be used.` }),
      el("p", {}, el("a", { class: "button", id: "invite-watch", href: `/watch/${encodeURIComponent(gameId)}`, text: "Watch the game" }),
        " ", el("a", { href: "/", text: "Back to the lobby" }))));
    document.title = "ginbox — invitation already used";
    $("#connection").textContent = "not joined";
    for (const id of ["#board", "#scores", "#turn"]) $(id).hidden = true;
    return true;
  }
  if (publicView) {
    await loadCreated(publicView);
    await acceptInvitation(invite, publicView);
  }
  return false;
}
