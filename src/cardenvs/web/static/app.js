// The game page: post moves and steps to the JSON API, then reload the server-rendered page; autoplay (watch
// mode) and "play to the end" (play mode, one legal move) instead fetch the view with its HTML and replace
// the game's part of the page in place.
(function () {
  if (!document.getElementById("game")) return;

  function autoKey() {
    return "cardenvs-auto-" + document.getElementById("game").dataset.session;
  }

  function showError(message) {
    document.getElementById("error").textContent = message;
    sessionStorage.removeItem(autoKey());
  }

  // a change; then the page is reloaded, or with inPlace its game part replaced
  async function post(kind, body, inPlace) {
    const session = document.getElementById("game").dataset.session;
    const response = await fetch(`/api/game/${session}/${kind}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({ error: response.statusText }));
      showError(data.error);
      return false;
    }
    if (inPlace) await replaceGame(session);
    else location.reload();
    return true;
  }

  async function replaceGame(session) {
    const response = await fetch(`/api/game/${session}?html=1`);
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok || !data.html) {
      showError(data.error || "could not read the game; reload the page");
      return;
    }
    const old = document.getElementById("game");
    const opened = Array.from(old.querySelectorAll("details"), (d) => d.open); // keep the log open if it was
    old.outerHTML = data.html;
    const details = document.getElementById("game").querySelectorAll("details");
    details.forEach((d, i) => { if (opened[i]) d.open = true; });
    bind();
  }

  function bind() {
    const game = document.getElementById("game");
    // every move, next and back names the step it answers: the server refuses a repeated one (a double click)
    const step = Number(game.dataset.step);
    const key = autoKey();

    function on(id, handler) {
      const element = document.getElementById(id);
      if (element) element.addEventListener("click", handler);
    }

    document.querySelectorAll("button.move").forEach((button) =>
      button.addEventListener("click", () => post("move", { step, action: Number(button.dataset.action) })));

    // hovering a move lifts the cards it plays in your hand (one hand card per card of the move)
    const handCards = Array.from(document.querySelectorAll(".seat.you .hand .card-wrap"));
    document.querySelectorAll("button.card-move").forEach((button) => {
      button.addEventListener("mouseenter", () => {
        const codes = (button.dataset.cards || "").split(" ").filter(Boolean);
        for (const code of codes) {
          const card = handCards.find((c) => c.dataset.code === code && !c.classList.contains("hinted"));
          if (card) card.classList.add("hinted");
        }
      });
      button.addEventListener("mouseleave", () => handCards.forEach((c) => c.classList.remove("hinted")));
    });

    const selected = [];
    const playSelected = document.getElementById("play-selected");
    document.querySelectorAll(".hand.selectable .card-wrap").forEach((card) =>
      card.addEventListener("click", () => {
        card.classList.toggle("selected");
        const i = selected.indexOf(card);
        if (i >= 0) selected.splice(i, 1); else selected.push(card);
        if (playSelected) playSelected.disabled = selected.length === 0;
      }));
    on("play-selected", () => post("move", { step, move: selected.map((c) => c.dataset.token).join(game.dataset.join) }));
    on("send-typed", () => post("move", { step, move: document.getElementById("typed").value }));
    const typed = document.getElementById("typed");
    if (typed) typed.addEventListener("keydown", (e) => { if (e.key === "Enter") post("move", { step, move: typed.value }); });

    on("next", () => post("next", { step }));
    on("back", () => { sessionStorage.removeItem(key); post("back", { step }); });
    on("start", () => { sessionStorage.removeItem(key); post("goto", { step: 0 }); });
    on("end", () => post("goto", { step: Number(game.dataset.steps) }));
    const viewer = document.getElementById("viewer");
    if (viewer) viewer.addEventListener("change", () =>
      post("view", { viewer: viewer.value === "" ? null : Number(viewer.value) }));

    // watch mode: autoplay steps on every 600 ms; play mode: play the only legal move while there is one
    const auto = document.getElementById("auto");
    const toEnd = document.getElementById("play-to-end");
    const running = () => sessionStorage.getItem(key);
    function toggle(button, label, first) {
      if (running()) { sessionStorage.removeItem(key); button.textContent = label; }
      else { sessionStorage.setItem(key, "1"); first(); }
    }
    on("auto", () => toggle(auto, "autoplay", () => post("next", { step }, true)));
    on("play-to-end", () =>
      toggle(toEnd, "play to the end", () => post("move", { step, action: Number(toEnd.dataset.action) }, true)));
    if (!running()) return;
    if (game.dataset.over === "true") { sessionStorage.removeItem(key); return; }
    if (auto) {
      auto.textContent = "stop autoplay";
      setTimeout(() => { if (running()) post("next", { step }, true); }, 600);
    } else if (toEnd) {
      toEnd.textContent = "stop playing";
      setTimeout(() => { if (running()) post("move", { step, action: Number(toEnd.dataset.action) }, true); }, 60);
    } else {
      sessionStorage.removeItem(key); // a choice to make: the person moves
    }
  }

  bind();
})();
