// The seat tokens this browser holds, in localStorage (never in a cookie or a URL the server sees).
// One record per game: {game_id, variant, seats: {<seat>: {token, name}}, invites: {<seat>: secret},
// created}, and for a game of a duplicate match also match (its id), board and table (from 0).
// Invite secrets are kept so that whoever created a private game can share its links again.

const KEY = "ginbox.seats.v1";

/** The object kept under ``key`` ({} when there is none or it does not parse). */
function readRecord(key) {
  try {
    const data = JSON.parse(localStorage.getItem(key) || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

function writeRecord(key, data) {
  localStorage.setItem(key, JSON.stringify(data));
}

const readAll = () => readRecord(KEY);
const writeAll = (data) => writeRecord(KEY, data);

/**
 * Remember a seat's token (and, for a game of a duplicate match, the match it belongs to and its
 * place there: {board, table}, both from 0).
 */
export function saveSeat(gameId, variant, seat, token, name, matchId = null, place = null) {
  const all = readAll();
  const game = all[gameId] || { game_id: gameId, variant, seats: {}, created: Date.now() };
  game.seats[String(seat)] = { token, name };
  if (matchId) game.match = matchId;
  if (matchId && place) Object.assign(game, { board: place.board, table: place.table });
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

/** The match a game of this browser's belongs to (saved from the match page), or null. */
export function matchOf(gameId) {
  const game = readAll()[gameId];
  return (game && game.match) || null;
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

// A person's challenges to bot accounts, in a record of their own: {<challenge_id>: {challenge_id,
// to, with, variant, kind, boards, move_time_s, name, token, status, match_id, game_id, created}}
// (with: a three-hand challenge's third participant, by name). The
// token, given once by POST /challenges, plays the person's seat of the game (kind "game") or in
// every game of the match (kind "match") the bot accepts, and withdraws the challenge until then.
const CHALLENGES = "ginbox.challenges.v1";

const readChallenges = () => readRecord(CHALLENGES);

/** Remember a challenge just made (the server's answer) with its token and the person's name. */
export function saveChallenge(challenge, token, name) {
  const all = readChallenges();
  all[challenge.challenge_id] = {
    challenge_id: challenge.challenge_id, to: challenge.to, with: challenge.with || [], variant: challenge.variant,
    kind: challenge.kind, boards: challenge.boards, move_time_s: challenge.move_time_s, name, token,
    status: challenge.status, match_id: challenge.match_id, game_id: challenge.game_id, created: Date.now(),
  };
  writeRecord(CHALLENGES, all);
}

/** Note what came of a challenge (its status and match or game id, from GET /challenges/{id}). */
export function updateChallenge(challenge) {
  const all = readChallenges();
  const mine = all[challenge.challenge_id];
  if (!mine) return;
  mine.status = challenge.status;
  mine.match_id = challenge.match_id;
  mine.game_id = challenge.game_id || null;
  writeRecord(CHALLENGES, all);
}

/** Every challenge this browser made, newest first. */
export function myChallenges() {
  return Object.values(readChallenges()).sort((a, b) => (b.created || 0) - (a.created || 0));
}

/** The challenge of this browser that became match ``matchId`` ({token, name, ...}), or null. */
export function challengeOfMatch(matchId) {
  return myChallenges().find((c) => c.match_id === matchId && c.token) || null;
}

/** Forget a challenge (its token is gone from this browser). */
export function forgetChallenge(challengeId) {
  const all = readChallenges();
  delete all[challengeId];
  writeRecord(CHALLENGES, all);
}
