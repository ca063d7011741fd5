// The seat tokens this browser holds, in localStorage (never in a cookie or a URL the server sees).
// One record per game: {game_id, variant, seats: {<seat>: {token, name}}, invites: {<seat>: secret},
// created}. Invite secrets are kept so that whoever created a private game can share its links again.

const KEY = "ginbox.seats.v1";

function readAll() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

function writeAll(data) {
  localStorage.setItem(KEY, JSON.stringify(data));
}

/** Remember a seat's token. */
export function saveSeat(gameId, variant, seat, token, name) {
  const all = readAll();
  const game = all[gameId] || { game_id: gameId, variant, seats: {}, created: Date.now() };
  game.seats[String(seat)] = { token, name };
  all[gameId] = game;
  writeAll(all);
}

/** Remember the invite secrets of a private game's open seats ({seat: secret}). */
export function saveInvites(gameId, variant, invites) {
  const all = readAll();
  const game = all[gameId] || { game_id: gameId, variant, seats: {}, created: Date.now() };
  game.invites = { ...(game.invites || {}), ...invites };
  all[gameId] = game;
  writeAll(all);
}

/** The invite secrets this browser holds for a game ({seat: secret}). */
export function invitesOf(gameId) {
  const game = readAll()[gameId];
  return (game && game.invites) || {};
}

/** An invitation link: the secret rides in the fragment, which a browser never sends to a server. */
export function inviteLink(gameId, seat, secret) {
  return `${location.origin}/play/${gameId}#seat=${seat}&secret=${encodeURIComponent(secret)}`;
}

/** The seats held in one game ({seat: {token, name}}), or null. */
export function seatsOf(gameId) {
  const game = readAll()[gameId];
  return game ? game.seats : null;
}

/** Every game this browser holds a seat in, newest first. */
export function myGames() {
  return Object.values(readAll()).sort((a, b) => (b.created || 0) - (a.created || 0));
}

/** Forget a game (its tokens are gone from this browser). */
export function forgetGame(gameId) {
  const all = readAll();
  delete all[gameId];
  writeAll(all);
}
