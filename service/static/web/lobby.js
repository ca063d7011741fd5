// The lobby: create a game, list the server's games, join an open seat, resume your own games.
// Each section of the page is a module of its own: "Play now" (lobby-quick.js), "Your games"
// (lobby-yours.js), "New game" (lobby-create.js), "Challenge a bot account" (lobby-challenges.js)
// and "Games on this server" (lobby-games.js); this one keeps your name and starts them.
import { setUpChallenges } from "./lobby-challenges.js";
import { setUpCreateForm } from "./lobby-create.js";
import { setUpGamesTable } from "./lobby-games.js";
import { setUpQuickPlay } from "./lobby-quick.js";
import { renderMyGames } from "./lobby-yours.js";

const yourName = document.querySelector("#your-name");
yourName.value = localStorage.getItem("ginbox.name") || "";
yourName.addEventListener("change", () => {
  // an empty name is not kept: each seat then takes its default (defaultName)
  if (yourName.value.trim()) localStorage.setItem("ginbox.name", yourName.value.trim());
  else localStorage.removeItem("ginbox.name");
});
// in the order the page was always started in: the seat rows (which take your name), your games,
// your challenges (then the rated bots are asked for), and last the server's games
setUpCreateForm();
setUpQuickPlay();
renderMyGames();
setUpChallenges();
setUpGamesTable();
