// The page: three views (Play, Replay, Set up) around one board. No build step: plain ES modules.
import { $, api, clearError, initZoom, nav, showError } from "./common.js";
import { initHint } from "./hint.js";
import { gameInAddress, initPlay, newGame, resumeGame, showPlay } from "./play.js";
import { goTo, initReplay, showRecord, showReplay } from "./replay.js";
import { initReview } from "./review.js";
import { initSetup, loadIntoSetup, showSetup } from "./setup.js";

const SHOW = { play: showPlay, replay: showReplay, setup: showSetup };

function switchTab(name) {
  nav.current = name;
  for (const b of document.querySelectorAll("[data-tab]")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
  for (const v of ["play", "replay", "setup"]) $(`#view-${v}`).hidden = v !== name;
  $("#chooser").hidden = true;
  const slot = $(`#view-${name} .hint-slot`);      // the hint panel sits under the view's own controls
  if (slot) slot.append($("#hint-panel"));
  document.body.dataset.view = name;
  SHOW[name]();
}

async function main() {
  nav.switchTab = switchTab;
  $("#error-close").addEventListener("click", clearError);
  initZoom();
  for (const b of document.querySelectorAll("[data-tab]")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  let startup;
  try {
    startup = await api("GET", "/api/startup");
  } catch (e) {
    showError(e.message);
    return;
  }
  initHint(startup.hint_seconds);
  initPlay(startup, { loadIntoSetup });
  initReplay();
  initReview({ goTo });
  await initSetup(startup, { newGame });
  const resume = gameInAddress();
  if (resume) {
    switchTab("play");
    await resumeGame(resume);
  } else if (startup.replay) {
    switchTab("replay");
    await showRecord(startup.replay);
  } else if (startup.position) {
    switchTab("setup");
  } else {
    switchTab("play");
  }
  document.body.dataset.ready = "yes";     // the page is set up (tests wait for this)
}

main().catch((e) => showError(`the page failed to start: ${e.message}`));
